"""models.ensemble: classifiers joined into one ONNX file answer their mean probability."""

import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models.ensemble import join  # noqa: E402
from mjcam.vision.classify import TileClassifier  # noqa: E402


def tiny(path, weights, classes=("a", "b", "c"), size=4, mean=(0.5, 0.5, 0.5)):
    """A classifier of a flattened input times ``weights`` (opset 17, the classifier's metadata)."""
    w = numpy_helper.from_array(weights.astype(np.float32), "w")
    shape = numpy_helper.from_array(np.array([0, -1], np.int64), "shape")
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["input", "shape"], ["flat"]),
         helper.make_node("MatMul", ["flat", "w"], ["logits"])],
        "tiny", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", len(classes)])], [w, shape])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    for k, v in {"classes": list(classes), "input_size": size, "mean": list(mean), "std": [0.25] * 3,
                 "layout": "NCHW RGB", "trained_on": path.name}.items():
        m.metadata_props.add(key=k, value=json.dumps(v))
    onnx.save(m, str(path))
    return str(path)


def test_joined_model_answers_the_mean_probability(tmp_path):
    rng = np.random.default_rng(3)
    paths = [tiny(tmp_path / f"m{i}.onnx", rng.normal(0, 0.02, (48, 3))) for i in range(3)]
    onnx.save(join(paths), str(tmp_path / "joined.onnx"))
    crops = rng.integers(0, 256, (5, 4, 4, 3), dtype=np.uint8)
    members = [TileClassifier(p, bonus=None, turned=False).probabilities(crops) for p in paths]
    joined = TileClassifier(str(tmp_path / "joined.onnx"), bonus=None, turned=False)
    p = joined.probabilities(crops)
    assert joined.classes == ("a", "b", "c")
    assert not np.allclose(members[0], members[1], atol=1e-3)  # the members disagree, so the mean is a test
    np.testing.assert_allclose(p, np.mean(members, axis=0), atol=1e-6)
    meta = {e.key: e.value for e in onnx.load(str(tmp_path / "joined.onnx")).metadata_props}
    assert [m["trained_on"] for m in json.loads(meta["ensemble_of"])] == [json.dumps(f"m{i}.onnx") for i in range(3)]


def test_a_joined_file_joins_again_as_its_networks(tmp_path):
    rng = np.random.default_rng(4)
    paths = [tiny(tmp_path / f"m{i}.onnx", rng.normal(0, 0.02, (48, 3))) for i in range(3)]
    onnx.save(join(paths[:2]), str(tmp_path / "pair.onnx"))
    onnx.save(join([str(tmp_path / "pair.onnx"), paths[2]]), str(tmp_path / "three.onnx"))
    crops = rng.integers(0, 256, (5, 4, 4, 3), dtype=np.uint8)
    members = [TileClassifier(p, bonus=None, turned=False).probabilities(crops) for p in paths]
    three = TileClassifier(str(tmp_path / "three.onnx"), bonus=None, turned=False).probabilities(crops)
    np.testing.assert_allclose(three, np.mean(members, axis=0), atol=1e-6)  # each network a third, not the pair a half
    joined = onnx.load(str(tmp_path / "three.onnx"))
    assert {i.name for i in joined.graph.initializer} == {"m0/w", "m0/shape", "m1/w", "m1/shape", "m2/w", "m2/shape",
                                                          "ensemble/share"}  # names not nested
    meta = {e.key: e.value for e in joined.metadata_props}
    assert [m["trained_on"] for m in json.loads(meta["ensemble_of"])] == [json.dumps(f"m{i}.onnx") for i in range(3)]


def test_members_must_agree_on_labels_and_input(tmp_path):
    w = np.zeros((48, 3))
    a = tiny(tmp_path / "a.onnx", w)
    with pytest.raises(ValueError, match="classes"):
        join([a, tiny(tmp_path / "b.onnx", w, classes=("a", "b", "d"))])
    with pytest.raises(ValueError, match="mean"):
        join([a, tiny(tmp_path / "c.onnx", w, mean=(0.4, 0.5, 0.5))])
    with pytest.raises(ValueError, match="at least two"):
        join([a])


def test_a_network_of_a_joined_file_is_replaced_by_leaving_it_out(tmp_path):
    rng = np.random.default_rng(5)
    paths = [tiny(tmp_path / f"m{i}.onnx", rng.normal(0, 0.02, (48, 3))) for i in range(4)]
    onnx.save(join(paths[:3]), str(tmp_path / "three.onnx"))
    onnx.save(join([str(tmp_path / "three.onnx"), paths[3]], leave_out=[0]), str(tmp_path / "swapped.onnx"))
    crops = rng.integers(0, 256, (5, 4, 4, 3), dtype=np.uint8)
    members = [TileClassifier(p, bonus=None, turned=False).probabilities(crops) for p in paths]
    swapped = TileClassifier(str(tmp_path / "swapped.onnx"), bonus=None, turned=False).probabilities(crops)
    np.testing.assert_allclose(swapped, np.mean(members[1:], axis=0), atol=1e-6)
    meta = {e.key: e.value for e in onnx.load(str(tmp_path / "swapped.onnx")).metadata_props}
    assert [m["trained_on"] for m in json.loads(meta["ensemble_of"])] == [json.dumps(f"m{i}.onnx") for i in (1, 2, 3)]
    with pytest.raises(ValueError, match="networks 0 to 3"):
        join([str(tmp_path / "three.onnx"), paths[3]], leave_out=[4])


def test_a_network_is_cut_out_as_a_classifier_of_its_own(tmp_path):
    from models.ensemble import extract

    rng = np.random.default_rng(6)
    paths = [tiny(tmp_path / f"m{i}.onnx", rng.normal(0, 0.02, (48, 3))) for i in range(3)]
    onnx.save(join(paths), str(tmp_path / "three.onnx"))
    onnx.save(extract(str(tmp_path / "three.onnx"), 1), str(tmp_path / "one.onnx"))
    crops = rng.integers(0, 256, (5, 4, 4, 3), dtype=np.uint8)
    alone = TileClassifier(paths[1], bonus=None, turned=False).probabilities(crops)
    cut = TileClassifier(str(tmp_path / "one.onnx"), bonus=None, turned=False)
    np.testing.assert_allclose(cut.probabilities(crops), alone, atol=1e-6)
    assert cut.classes == ("a", "b", "c") and cut.input_size == 4
    meta = {e.key: e.value for e in onnx.load(str(tmp_path / "one.onnx")).metadata_props}
    assert json.loads(meta["network_of"]) == {"file": "three.onnx", "network": 1}
    assert meta["trained_on"] == json.dumps("m1.onnx")  # the network's own notes
    with pytest.raises(ValueError, match="networks 0 to 2"):
        extract(str(tmp_path / "three.onnx"), 3)


def test_the_quick_network_keeps_only_the_readings_it_is_sure_of(tmp_path):
    from mjcam.vision.session import ModelError

    rng = np.random.default_rng(7)
    full_path = tiny(tmp_path / "full.onnx", rng.normal(0, 0.02, (48, 3)))
    quick_path = tiny(tmp_path / "quick.onnx", rng.normal(0, 0.05, (48, 3)))
    crops = rng.integers(0, 256, (40, 4, 4, 3), dtype=np.uint8)
    full = TileClassifier(full_path, bonus=None, turned=False, quick=False).probabilities(crops)
    quick_clf = TileClassifier(quick_path, bonus=None, turned=False, quick=False)
    first = quick_clf.probabilities(crops)
    bound = float(np.median(first.max(axis=1)))
    got = TileClassifier(full_path, bonus=None, turned=False, quick=quick_clf, quick_sure=bound,
                         batch=16).probabilities(crops)
    sure = first.max(axis=1) >= bound
    assert sure.any() and (~sure).any()
    np.testing.assert_allclose(got[sure], first[sure], atol=1e-6)
    np.testing.assert_allclose(got[~sure], full[~sure], atol=1e-6)
    assert not np.allclose(first[~sure], full[~sure], atol=1e-3)  # the two models disagree there
    # a quick network must read the same labels and input as the model it stands in for
    other = TileClassifier(tiny(tmp_path / "other.onnx", np.zeros((48, 3)), classes=("a", "b", "d")),
                           bonus=None, turned=False, quick=False)
    with pytest.raises(ModelError, match="labels or input differ"):
        TileClassifier(full_path, bonus=None, quick=other).probabilities(crops)
    # only the shipped classifier takes the shipped quick network unasked
    assert TileClassifier(full_path, bonus=None).quick is None
