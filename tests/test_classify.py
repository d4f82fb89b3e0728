"""The shipped ONNX classifier, its session handling, and `mjcam classify`."""

import glob
import json
import os
import threading

import numpy as np
import pytest

from mjcam.cli import main
from mjcam.vision.classify import DEFAULT_MODEL, ModelError, TileClassifier
from mjcam.vision.io import ImageError, load_image
from mjcam.vision.labels import CLASSES

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
CROPS = sorted(glob.glob(os.path.join(FIXTURES, "crops", "*.png")))
SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")


def fixture_inputs(clf: TileClassifier) -> np.ndarray:
    """The committed sample crops as ``clf``'s inputs (each whole picture the tile's box)."""
    images = [load_image(p) for p in CROPS]
    return np.stack([clf.crops(im, [(0, 0, im.shape[1], im.shape[0])])[0] for im in images])


def test_model_is_shipped_and_labels_match_its_output():
    import onnxruntime as ort

    assert os.path.exists(DEFAULT_MODEL)
    sess = ort.InferenceSession(DEFAULT_MODEL, providers=["CPUExecutionProvider"])
    meta = sess.get_modelmeta().custom_metadata_map
    labels = json.loads(meta["classes"])
    assert labels == list(CLASSES) and len(labels) == 44
    assert sess.get_outputs()[0].shape[-1] == len(labels)
    assert json.loads(meta["input_size"]) >= 64
    assert len(json.loads(meta["mean"])) == len(json.loads(meta["std"])) == 3


def test_session_is_lazy_and_shared():
    clf = TileClassifier()
    assert clf._session is None  # nothing loaded by construction (or by importing vision)
    size = TileClassifier().crops(np.zeros((8, 8, 3), np.uint8), [(0, 0, 8, 8)]).shape[1]  # (another instance)
    assert clf._session is None
    results = []

    def work():
        results.append(clf(np.zeros((4, size, size, 3), np.uint8)))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(len(r) == 4 for r in results)


def test_every_answer_has_confidence_and_alternatives():
    clf = TileClassifier()
    clf.session  # noqa: B018  (reads the input size)
    size = clf.input_size
    labels = clf(np.random.default_rng(0).integers(0, 255, (3, size, size, 3), dtype=np.uint8))
    for lab in labels:
        assert lab.code in CLASSES and 0 <= lab.confidence <= 1
        assert len(lab.alternatives) == 3
        assert all(p <= lab.confidence for _, p in lab.alternatives)
    assert clf(np.zeros((0, size, size, 3), np.uint8)) == []


def test_shipped_model_reads_the_sample_crops():
    assert len(CROPS) == 16
    clf = TileClassifier()
    got = {os.path.basename(p)[:-4]: clf.classify_image(load_image(p)).code for p in CROPS}
    right = [k for k, v in got.items() if k == v]
    assert len(right) >= 15, got


def test_the_turned_copy_is_read_only_where_the_first_reading_is_unsure():
    plain = TileClassifier()
    crops = fixture_inputs(plain)
    # some crops sure of their first reading, some not (a few crops dimmed and blurred to make them unsure)
    crops[::3] = (crops[::3] // 3 + 60).astype(np.uint8)
    once = TileClassifier(turned=False).probabilities(crops)
    both = TileClassifier(turn_below=1.0).probabilities(crops)
    bound = float(np.median(once.max(axis=1)))
    chosen = TileClassifier(turn_below=bound).probabilities(crops)
    sure = once.max(axis=1) >= bound
    assert sure.any() and (~sure).any()
    np.testing.assert_allclose(chosen[sure], once[sure], atol=1e-6)
    np.testing.assert_allclose(chosen[~sure], both[~sure], atol=1e-6)
    assert not np.allclose(once[~sure], both[~sure], atol=1e-4)  # the turn does change those readings
    assert plain.turn_below < 1



def test_sessions_take_two_threads_unless_told(monkeypatch):
    from mjcam.vision.session import default_threads

    monkeypatch.delenv("MJCAM_THREADS", raising=False)
    assert default_threads() == min(2, os.cpu_count() or 1)
    assert TileClassifier().threads == default_threads()
    monkeypatch.setenv("MJCAM_THREADS", "3")
    assert default_threads() == 3 and TileClassifier().threads == 3
    assert TileClassifier(threads=1).threads == 1
    for bad in ("0", "two", ""):
        monkeypatch.setenv("MJCAM_THREADS", bad)
        assert default_threads() == min(2, os.cpu_count() or 1)


def test_missing_or_foreign_model(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        TileClassifier(str(tmp_path / "none.onnx")).session
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load"):
        TileClassifier(str(bad)).session


def test_classify_cli_json(capsys):
    code = main(["classify", CROPS[0], CROPS[1], "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and [os.path.basename(r["path"]) for r in out] == [os.path.basename(p) for p in CROPS[:2]]
    for r in out:
        assert r["code"] in CLASSES and 0 <= r["confidence"] <= 1 and "alternatives" in r


def test_classify_cli_text(capsys):
    code = main(["classify", CROPS[0]])
    assert code == 0 and os.path.basename(CROPS[0]) in capsys.readouterr().out


@pytest.mark.parametrize("name, data, words", [
    ("empty.jpg", b"", "empty file"),
    ("text.jpg", b"hello, I am not a picture", "not a picture"),
    ("trunc.png", None, "corrupt or truncated"),
])
def test_bad_files_are_refused_and_the_rest_go_on(tmp_path, capsys, name, data, words):
    p = tmp_path / name
    if data is None:
        good = open(CROPS[0], "rb").read()
        data = good[: len(good) // 3]
    p.write_bytes(data)
    code = main(["classify", str(p), CROPS[0], "--json"])
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert code == 2 and words in cap.err and cap.err.count("\n") == 1
    assert "error" in out[0] and out[1]["code"] in CLASSES


def test_load_image_errors(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(str(tmp_path / "none.jpg"))
    with pytest.raises(ImageError, match="folder"):
        load_image(str(tmp_path))


def test_huge_image_is_refused_without_decoding(tmp_path):
    from PIL import Image

    p = tmp_path / "huge.png"
    Image.new("1", (15000, 14000)).save(p)  # 210 MP, a few kB on disk
    with pytest.raises(ImageError, match="200 MP"):
        load_image(str(p))


def test_exif_orientation_is_applied(tmp_path):
    from PIL import Image

    img = Image.new("RGB", (40, 20), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    p = tmp_path / "rot.jpg"
    img.save(p, exif=exif)
    assert load_image(str(p)).shape == (40, 20, 3)


def _framed(photo: str, box, k: float = 3.0) -> tuple[np.ndarray, tuple[int, int]]:
    """A picture of one tile of a sample photo framed loosely, the tile at the centre, as
    benchmarks/classify_framed.py cuts them, and where its top left corner lies in the photo."""
    from benchmarks.classify_framed import framing

    img = load_image(photo)
    a, b, c, d = framing(box, k, img.shape[1], img.shape[0])
    return img[b:d, a:c], (a, b)


def test_a_tile_framed_loosely_is_found_and_read_from_its_own_box():
    from mjcam.vision.pipeline import default_recognizer

    labels = json.load(open(os.path.join(SAMPLES, "labels.json")))["hand-honours.jpg"]
    rec = default_recognizer()
    right = seen = 0
    for code, *box in labels:
        pic, (a, b) = _framed(os.path.join(SAMPLES, "hand-honours.jpg"), box)
        if a == 0 or b == 0:
            continue  # cut off by the photo's edge: the tile is not at the picture's centre
        seen += 1
        label, found = rec.read_one(pic)
        right += label.code == code
        assert found is not None  # the tile is a small part of the picture: read from the box found
        fx, fy = (found[0] + found[2]) / 2 + a, (found[1] + found[3]) / 2 + b
        assert box[0] <= fx <= box[2] and box[1] <= fy <= box[3], (code, found, box)
    assert seen >= 12 and right >= seen - 1, (right, seen)


def test_a_tight_crop_is_still_read_as_a_whole():
    from mjcam.vision.pipeline import default_recognizer

    rec = default_recognizer()
    got = [(os.path.basename(p)[:-4], *rec.read_one(load_image(p))) for p in CROPS]
    assert sum(code == label.code for code, label, _ in got) >= 15, got
    assert sum(box is None for _, _, box in got) >= 14  # the whole picture is the tile


def test_classify_cli_gives_the_box_of_a_tile_it_found(tmp_path, capsys):
    from PIL import Image

    code, *box = json.load(open(os.path.join(SAMPLES, "labels.json")))["hand-honours.jpg"][7]
    pic, (a, b) = _framed(os.path.join(SAMPLES, "hand-honours.jpg"), box)
    p = tmp_path / "one-tile.png"
    Image.fromarray(pic).save(p)
    assert main(["classify", str(p), CROPS[0], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["code"] == code and out[0]["box"] is not None and out[1]["box"] is None
    x1, y1, x2, y2 = out[0]["box"]
    assert 0 <= x1 < x2 <= pic.shape[1] and 0 <= y1 < y2 <= pic.shape[0]
    assert main(["classify", str(p)]) == 0 and "the tile at" in capsys.readouterr().out


@pytest.mark.parametrize("wide", [6.0, 0.2])
def test_a_tile_stretched_out_of_shape_is_read_drawn_back_to_a_tiles_shape(wide, monkeypatch):
    """A picture of a tile stretched six times across or five times down (as Roboflow's square
    resize stretched strips of a hand) has no tile's shape; read drawn back to one, nearly all the
    sample tiles read right, against a few as the sliver it is."""
    import cv2

    import mjcam.vision.classify as vc

    clf = TileClassifier()

    def right():
        n = 0
        for path in CROPS:
            image = load_image(path)
            h, w = image.shape[:2]
            size = (round(w * wide), h) if wide > 1 else (w, round(h / wide))
            n += clf.classify_image(cv2.resize(image, size)).code == os.path.basename(path)[:-4]
        return n

    assert right() >= len(CROPS) - 2
    monkeypatch.setattr(vc, "out_of_shape", lambda box: False)
    assert right() <= len(CROPS) // 2


def test_a_classifier_of_your_own_is_taken_from_mjcam_classifier(monkeypatch, tmp_path):
    monkeypatch.setenv("MJCAM_CLASSIFIER", str(tmp_path / "mine.onnx"))
    assert TileClassifier().model_path == str(tmp_path / "mine.onnx")
    with pytest.raises(ModelError, match="not found"):
        TileClassifier().session  # noqa: B018
    assert TileClassifier(DEFAULT_MODEL).model_path == DEFAULT_MODEL  # a path given wins
    monkeypatch.delenv("MJCAM_CLASSIFIER")
    assert TileClassifier().model_path == DEFAULT_MODEL


def test_a_face_lying_up_read_unsurely_turned_is_read_drawn_back_to_a_standing_tiles_shape(monkeypatch):
    import mjcam.vision.classify as classify

    clf = TileClassifier()
    clf.session  # noqa: B018  (the labels are read with the model)
    n = len(clf.classes)
    calls = []

    def probabilities(crops):  # turned a quarter: unsure; drawn back to a standing tile: sure of class 1
        calls.append(len(crops))
        p = np.full((len(crops), n), 0.6 / (n - 1), np.float32)
        p[:, 0 if len(calls) == 1 else 1] = 0.4 if len(calls) == 1 else 0.95
        return p

    monkeypatch.setattr(clf, "probabilities", probabilities)
    image = np.full((200, 400, 3), 128, np.uint8)
    flat = [(10 + 40 * i, 50, 48 + 40 * i, 76) for i in range(5)]  # a row lying up, seen from the seat
    p = clf.box_probabilities(image, flat)
    assert calls == [5, 5] and all(row.argmax() == 1 for row in p)
    # a tile lying sideways among standing ones is read turned only, as is a sure turned reading
    calls.clear()
    row = [(10 + 31 * i, 50, 40 + 31 * i, 90) for i in range(4)] + [(134, 60, 174, 90)]
    clf.box_probabilities(image, row)
    assert calls == [5]
    calls.clear()
    monkeypatch.setattr(classify, "TURNED_SURE", 0.3)
    clf.box_probabilities(image, flat)
    assert calls == [5]
