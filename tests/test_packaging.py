"""What `pip install .` installs: the mjcam package alone, its runtime and shipped models, no
training code; and the registry of shipped models against the files and the model card."""

import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from mjcam.models import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("setuptools")
    out, src = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("src") / "mjcam"
    # built from a copy of what git tracks, so nothing left over in the checkout (build/) gets in
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for f in filter(None, files):
        if os.path.isfile(os.path.join(ROOT, f)):
            os.makedirs(os.path.dirname(src / f), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), src / f)
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(out), str(src)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    (path,) = [p for p in out.iterdir() if p.suffix == ".whl"]
    return path


def test_the_wheel_installs_mjcam_alone_with_no_training_code(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"mjcam"}
    for shipped in registry.SHIPPED.values():
        assert f"mjcam/models/{shipped.file}" in names
    models = {n for n in names if n.startswith("mjcam/models/") and n.endswith(".py")}
    assert models == {"mjcam/models/__init__.py", "mjcam/models/registry.py"}
    assert {"mjcam/scoring/engine.py", "mjcam/vision/pipeline.py", "mjcam/cli.py"} <= set(names)
    assert not [n for n in names if re.search(r"(train|datasets|benchmarks|tests/|\.md$)", n)], names


def test_the_unpacked_wheel_scores_and_finds_its_models_without_the_checkout(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = ("import mjcam, mjcam.vision.pipeline; from mjcam import score, recognize; "
            "from mjcam.models import registry; import os; "
            "assert os.path.dirname(mjcam.__file__) == os.path.join(os.getcwd(), 'mjcam'); "
            "assert all(os.path.exists(m.path) and m.path.startswith(os.getcwd()) for m in registry.SHIPPED.values()); "
            "print(score('[RdRdRd] [123s] [999s] 45s NN +6s', rules='hk-old-style', discarder='W', seat='S').fan)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "5"


def test_every_shipped_model_matches_the_registry_and_the_card():
    card = open(os.path.join(ROOT, "models", "MODEL_CARD.md"), encoding="utf-8").read()
    for m in registry.SHIPPED.values():
        assert registry.sha256(m.path) == m.sha256, f"{m.file} changed without its registry entry"
        assert re.search(rf"`{re.escape(m.file)}`.*`{m.sha256}`", card), f"the model card does not list {m.file} as shipped"
    listed = set(re.findall(r"^\| `(\w+\.onnx)` \|", card, re.M))
    assert listed == {m.file for m in registry.SHIPPED.values()}
    assert {f for f in os.listdir(os.path.join(ROOT, "models")) if f.endswith(".onnx")} == listed


def test_a_shipped_model_whose_bytes_changed_is_refused(tmp_path, monkeypatch):
    from mjcam.vision.classify import TileClassifier
    from mjcam.vision.session import ModelError

    fake = tmp_path / "tile_classifier.onnx"
    fake.write_bytes(open(registry.path("classifier"), "rb").read()[:-10])
    monkeypatch.setattr(registry, "HERE", str(tmp_path))
    monkeypatch.setattr(registry, "_verified", set())
    with pytest.raises(ModelError, match="sha256 differs"):
        TileClassifier(str(fake)).session  # noqa: B018
    assert registry.verify(str(tmp_path / "elsewhere.onnx")) is None  # not a shipped file: not checked
