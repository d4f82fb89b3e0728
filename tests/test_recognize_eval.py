"""The recogniser benchmark's scoring (benchmarks/recognize_eval.assess) on made-up predictions."""

import os

import pytest


from benchmarks.recognize_eval import CONDITIONS, assess, condition_name, conditioned, framed, strips

from datasets.readers import LabelledBox, LabelledImage


def _row(codes, y=100, w=30, h=40, x0=10):
    return [LabelledBox(c, (x0 + i * w, y, x0 + (i + 1) * w, y + h), False) for i, c in enumerate(codes)]


def test_assess_counts_matches_misreads_background_and_rows():
    hand = "1m 2m 3m 4p 5p 6p 7s".split()
    rec = LabelledImage("x.jpg", 640, 640, _row(hand))
    boxes = [b.box for b in rec.boxes]
    codes = list(hand)
    codes[3] = "5p"  # one misread
    stray_box = (300, 10, 330, 50)  # an unlabelled tile far behind the hand
    pred = {"boxes": boxes + [stray_box], "codes": codes + ["E"], "scores": [0.9] * 8,
            "stray": [False] * 7 + [True]}
    m = assess([rec], [pred])
    assert m["recall"] == 1.0 and m["background"] == 1 and m["false"] == 0
    assert abs(m["accuracy"] - 6 / 7) < 1e-9
    assert m["rows_n"] == 1 and m["rows_exact"] == 0.0 and m["rows_exact_hand"] == 0.0

    pred["codes"][3] = "4p"
    m = assess([rec], [pred])
    # read right, but the stray tile behind the hand breaks the whole-photo reading, not the hand's
    assert m["accuracy"] == 1.0 and m["rows_exact"] == 0.0 and m["rows_exact_hand"] == 1.0
    del pred["stray"]  # a system that sets nothing apart is read whole
    assert assess([rec], [pred])["rows_exact_hand"] == 0.0


def test_assess_loose_box_is_a_miss_and_a_false_detection():
    rec = LabelledImage("x.jpg", 640, 640, _row(["1m", "2m", "3m", "4m", "5m"]))
    boxes = [b.box for b in rec.boxes]
    x1, y1, x2, y2 = boxes[0]
    boxes[0] = (x1, y1, x2 + 40, y2 + 40)  # IoU with its tile under 0.5
    m = assess([rec], [{"boxes": boxes, "codes": ["1m", "2m", "3m", "4m", "5m"], "scores": [1.0] * 5}])
    assert m["recall"] == 0.8 and m["false"] == 1 and m["precision"] == 0.8


def test_a_flower_labelled_by_part_of_the_tile_in_rethink_bonus_matches_the_whole_tile():
    """rethink-bonus boxes flowers and seasons round part of the tile: the whole tile found and read
    right counts as found there, while the same boxes elsewhere (or a box far larger than the
    label) do not."""
    boxes = [LabelledBox("F1", (0, 0, 40, 24)), LabelledBox("1m", (50, 0, 90, 56))]
    pred = {"boxes": [(0, 0, 40, 56), (50, 0, 90, 56)], "codes": ["F1", "1m"], "scores": [0.9, 0.9]}
    rethink = LabelledImage("/d/roboflow-rethink-bonus/images/a.jpg", 640, 640, boxes)
    m = assess([rethink], [pred])
    assert m["recall"] == 1.0 and m["bonus"] == 1.0 and m["accuracy"] == 1.0
    elsewhere = assess([LabelledImage("/d/roboflow-hk-chinese/valid/images/a.jpg", 640, 640, boxes)], [pred])
    assert elsewhere["recall"] == 0.5 and elsewhere["bonus"] == 0.0
    huge = dict(pred, boxes=[(0, 0, 80, 120), (50, 0, 90, 56)])
    assert assess([rethink], [huge])["bonus"] == 0.0


def test_assess_counts_a_tile_labelled_twice_once():
    codes = "1m 2m 3m 9s 5m 6m".split()
    boxes = _row(codes)
    # the 2m labelled a second time, the 9s a second time as 5s (the labels disagree)
    twice = boxes + [LabelledBox("2m", boxes[1].box[:3] + (boxes[1].box[3] - 2,)), LabelledBox("5s", boxes[3].box)]
    rec = LabelledImage("x.jpg", 640, 640, twice)
    read = "1m 2m 3m 5s 5m 6m".split()  # the 9s/5s tile read as 5s
    pred = {"boxes": [b.box for b in boxes], "codes": read, "scores": [0.9] * 6}
    m = assess([rec], [pred])
    assert m["truths"] == 6 and m["recall"] == 1.0 and m["accuracy"] == 1.0 and m["rows_exact"] == 1.0
    pred["codes"][3] = "9s"  # the other label's code is as right
    assert assess([rec], [pred])["accuracy"] == 1.0
    pred["codes"][3] = "4s"
    assert abs(assess([rec], [pred])["accuracy"] - 5 / 6) < 1e-9
    # as published: 8 labels, two never found, and the row has 8 tiles to read
    pub = assess([rec], [{"boxes": [b.box for b in boxes], "codes": read, "scores": [0.9] * 6}], merge_duplicates=False)
    assert pub["truths"] == 8 and pub["recall"] == 0.75 and pub["rows_exact"] == 0.0


def test_framed_sets_the_photo_in_a_larger_table_and_moves_its_labels(tmp_path):
    import numpy as np
    from PIL import Image

    photo = np.zeros((60, 80, 3), np.uint8)
    photo[:] = (30, 120, 40)  # green felt at the edges
    photo[20:40, 30:45] = 235  # one light tile
    path = tmp_path / "p.png"
    Image.fromarray(photo).save(path)
    rec = LabelledImage(str(path), 80, 60, [LabelledBox("Wd", (30, 20, 45, 40))])
    out = tmp_path / "out"
    out.mkdir()
    (big,) = framed([rec], 3, str(out))
    assert (big.width, big.height) == (240, 180) and big.path.startswith(str(out))
    assert big.boxes[0].code == "Wd" and big.boxes[0].box == (110, 80, 125, 100)
    a = np.asarray(Image.open(big.path).convert("RGB")).astype(int)
    assert a.shape == (180, 240, 3)
    assert a[85:95, 113:122].mean() > 220  # the tile, where its label now says
    table = np.concatenate([a[:50].reshape(-1, 3), a[130:].reshape(-1, 3)])
    assert np.abs(table.mean(0) - (30, 120, 40)).max() < 4  # the table: the photo's edge colour


def _one_tile_photo(tmp_path):
    import numpy as np
    from PIL import Image

    photo = np.zeros((60, 80, 3), np.uint8)
    photo[:] = (30, 120, 40)  # green felt
    photo[20:40, 30:45] = 200  # one light tile
    path = tmp_path / "p.png"
    Image.fromarray(photo).save(path)
    out = tmp_path / "out"
    out.mkdir()
    return LabelledImage(str(path), 80, 60, [LabelledBox("Wd", (30, 20, 45, 40))]), str(out)


def test_conditions_change_the_light_and_keep_the_labels(tmp_path):
    import numpy as np
    from PIL import Image

    rec, out = _one_tile_photo(tmp_path)
    (warm,) = conditioned([rec], "warm", out)
    (cool,) = conditioned([rec], "cool", out)
    (dim,) = conditioned([rec], "dim", out)
    for r in (warm, cool, dim):
        assert (r.width, r.height) == (80, 60) and r.boxes == rec.boxes and r.path.startswith(out)
    face = {k: np.asarray(Image.open(r.path).convert("RGB")).astype(int)[25:35, 33:42].mean((0, 1))
            for k, r in (("warm", warm), ("cool", cool), ("dim", dim))}
    assert face["warm"][0] > 240 and face["warm"][2] < 140  # red up, blue down
    assert face["cool"][2] > 240 and face["cool"][0] < 150
    assert abs(face["dim"] - 200 * (200 / 255) ** 0.8 * 0.6).max() < 6
    import pytest

    with pytest.raises(ValueError, match="unknown condition"):
        conditioned([rec], "foggy", out)
    with pytest.raises(ValueError, match="unknown condition"):
        conditioned([rec], "turnleft", out)
    assert "turn8" in CONDITIONS


def test_a_turned_photo_grows_and_its_labels_turn_with_it(tmp_path):
    import numpy as np
    from PIL import Image

    rec, out = _one_tile_photo(tmp_path)
    (turned,) = conditioned([rec], "turn-15", out)
    a = np.asarray(Image.open(turned.path).convert("RGB")).astype(int)
    assert a.shape[:2] == (turned.height, turned.width) and turned.width > 80 and turned.height > 60
    x0, y0, x1, y1 = turned.boxes[0].box
    assert turned.boxes[0].code == "Wd" and x1 - x0 > 15 and y1 - y0 > 20  # the box round the turned tile
    cx, cy = round((x0 + x1) / 2), round((y0 + y1) / 2)
    assert a[cy - 3:cy + 4, cx - 3:cx + 4].mean() > 180  # the tile, where its label now says
    assert np.abs(a[1, 1] - (30, 120, 40)).max() < 8  # the grown corners: the table's colour


def test_a_tilted_photo_keeps_its_frame_and_drops_the_tiles_turned_out_of_it(tmp_path):
    import numpy as np
    from PIL import Image

    rec, out = _one_tile_photo(tmp_path)
    rec.boxes.append(LabelledBox("E", (0, 0, 6, 8)))  # a corner tile, turned out of the frame
    (tilted,) = conditioned([rec], "tilt-15", out)
    a = np.asarray(Image.open(tilted.path).convert("RGB")).astype(int)
    assert a.shape[:2] == (60, 80) and (tilted.width, tilted.height) == (80, 60)
    assert [b.code for b in tilted.boxes] == ["Wd"]
    x0, y0, x1, y1 = tilted.boxes[0].box
    assert x1 - x0 > 15 and y1 - y0 > 20  # the box round the turned tile
    cx, cy = round((x0 + x1) / 2), round((y0 + y1) / 2)
    assert a[cy - 3:cy + 4, cx - 3:cx + 4].mean() > 180  # the tile, where its label now says
    assert condition_name("tilt7.5") == "tilt7.5"


def test_strips_stretch_each_row_to_the_photo_and_move_its_labels(tmp_path):
    import numpy as np
    from PIL import Image

    photo = np.full((100, 100, 3), (30, 120, 40), np.uint8)
    boxes = []
    for k in range(5):  # one row of five light tiles, 12 wide and 16 tall, from x = 10
        x = 10 + 14 * k
        photo[40:56, x:x + 12] = 235
        boxes.append(LabelledBox("2m", (x, 40, x + 12, 56)))
    path = tmp_path / "p.png"
    Image.fromarray(photo).save(path)
    rec = LabelledImage(str(path), 100, 100, boxes)
    out = tmp_path / "out"
    out.mkdir()
    (band,) = strips([rec], str(out))
    # the band: the row with a margin of 4 (a third of the short side), 76 x 24, stretched to 100 x 100
    assert (band.width, band.height) == (100, 100) and band.path.startswith(str(out))
    sx, sy = 100 / 76, 100 / 24
    for b, want in zip(band.boxes, boxes):
        assert b.code == "2m"
        np.testing.assert_allclose(b.box, ((want.box[0] - 6) * sx, (want.box[1] - 36) * sy,
                                           (want.box[2] - 6) * sx, (want.box[3] - 36) * sy), atol=1e-6)
    a = np.asarray(Image.open(band.path).convert("RGB")).astype(int)
    x0, y0, x1, y1 = band.boxes[2].box
    assert a[round(y0) + 10:round(y1) - 10, round(x0) + 3:round(x1) - 3].mean() > 200  # a tile where its label says
    assert a[3:12, 3:6].mean(axis=(0, 1))[1] > 100  # the felt of the margin
    # a band stretched less than three times is left out
    assert strips([rec], str(out), least=3.5) == []


def test_strips_cut_columns_too_and_stretch_them_across(tmp_path):
    """A row that runs down the photo (a photo turned a quarter) is cut as a band and stretched
    across, its labels moved with it."""
    import numpy as np
    from PIL import Image

    photo = np.full((100, 100, 3), (30, 120, 40), np.uint8)
    boxes = []
    for k in range(5):  # one column of five tiles lying on their side, 16 wide and 12 tall, from y = 10
        y = 10 + 14 * k
        photo[y:y + 12, 40:56] = 235
        boxes.append(LabelledBox("3p", (40, y, 56, y + 12)))
    path = tmp_path / "q.png"
    Image.fromarray(photo).save(path)
    out = tmp_path / "out"
    out.mkdir()
    (band,) = strips([LabelledImage(str(path), 100, 100, boxes)], str(out))
    sx, sy = 100 / 24, 100 / 76  # the column with a margin of 4: 24 x 76
    assert len(band.boxes) == 5
    for b, want in zip(band.boxes, boxes):
        np.testing.assert_allclose(b.box, ((want.box[0] - 36) * sx, (want.box[1] - 6) * sy,
                                           (want.box[2] - 36) * sx, (want.box[3] - 6) * sy), atol=1e-6)
    a = np.asarray(Image.open(band.path).convert("RGB")).astype(int)
    x0, y0, x1, y1 = band.boxes[1].box
    assert a[round(y0) + 3:round(y1) - 3, round(x0) + 10:round(x1) - 10].mean() > 200


def test_unseen_set_hands_are_whole_hands_in_a_photo_frame(tmp_path):
    from datasets.xmahjongg_tiles import xmahjongg_tiles
    from benchmarks.recognize_eval import unseen_set_hands
    from mjcam.scoring.tiles import CODES

    if "real" not in xmahjongg_tiles():
        pytest.skip("xmahjongg's tile pictures are not installed (apt-get install xmahjongg)")
    recs = unseen_set_hands(str(tmp_path), count=3, seed=5)
    assert len(recs) == 3
    for r in recs:
        assert os.path.exists(r.path) and r.height >= 0.7 * r.width
        assert 14 <= len(r.boxes) <= 18 and all(b.code in CODES for b in r.boxes)  # four sets and a pair, bonus aside
        assert all(0 <= b.box[0] < b.box[2] <= r.width and 0 <= b.box[1] < b.box[3] <= r.height for b in r.boxes)


# ---------------------------------------------------------------- the photos, the columns, the run

def _yolo_photo(folder, name, size=(64, 64), rows=("0 0.3 0.5 0.2 0.3", "1 0.6 0.5 0.2 0.3")):
    from PIL import Image

    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (30, 120, 40)).save(folder / "images" / name)
    (folder / "labels" / (name.rsplit(".", 1)[0] + ".txt")).write_text("\n".join(rows) + "\n")


def _fake_data(tmp_path):
    """A data folder in the two Roboflow sets' layouts: HK train and valid (one HK photo, one of the
    Japanese set, one screenshot in valid), and rethink-bonus with 20 sources (one with a rotated_
    copy) and the held-out home-mj set."""
    data = tmp_path / "data"
    hk = data / "roboflow-hk-chinese"
    hk.mkdir(parents=True)
    (hk / "data.yaml").write_text("names: ['sc1', 'sc2', 'sd1', 'hwe']\n")
    for k in range(3):
        _yolo_photo(hk / "train", f"t{k}_jpg.rf.{k}.jpg")
    for name in ("hk1_jpg.rf.a.jpg", "IMG_2701_jpg.rf.b.jpg", "Screenshot_1_png.rf.c.jpg"):
        _yolo_photo(hk / "valid", name)
    rb = data / "roboflow-rethink-bonus"
    rb.mkdir()
    (rb / "data.yaml").write_text("names: ['c1', 'c2', 'd1', 'we']\n")
    for k in range(20):
        _yolo_photo(rb, f"p{k:02d}_jpg.rf.{k}.jpg", size=(80, 80))
    for k in range(20):
        _yolo_photo(rb, f"rotated_p{k:02d}_jpg.rf.r{k}.jpg", size=(80, 80))
    for name in ("home-mj-IMG_1_png.rf.h1.jpg", "rotated_home-mj-IMG_1_png.rf.h2.jpg", "home-mj-IMG_2_png.rf.h3.jpg"):
        _yolo_photo(rb, name, size=(80, 80))
    return str(data)


def test_photo_parts_read_each_held_out_choice(tmp_path):
    from benchmarks.recognize_eval import photo_parts
    from datasets.splits import split

    data = _fake_data(tmp_path)
    names = lambda part: sorted(os.path.basename(r.path) for r in part.records)  # noqa: E731

    (valid,) = photo_parts("valid", data, str(tmp_path))
    assert valid.name == "HK valid" and names(valid) == ["hk1_jpg.rf.a.jpg"] and not valid.letterboxed
    assert valid.records[0].boxes[0].code == "1m" and (valid.records[0].width, valid.records[0].height) == (64, 64)

    sp = split(data)
    (test,) = photo_parts("rethink-test", data, str(tmp_path))
    assert test.name == "rethink test" and test.letterboxed
    assert names(test) == sorted(os.path.basename(r.path) for r in sp.rethink_test)
    # 15 % of the 20 sources, each with its rotated copy; none of the held-out set; read at their own size
    assert len(test.records) == 6 and not any("home-mj" in n for n in names(test))
    assert {n.removeprefix("rotated_").split("_jpg")[0] for n in names(test)} == {
        n.split("_jpg")[0] for n in names(test) if not n.startswith("rotated_")}
    assert {(r.width, r.height) for r in test.records} == {(80, 80)} and test.records[0].boxes[1].code == "2m"

    (unseen,) = photo_parts("rethink-unseen", data, str(tmp_path))
    assert unseen.name == "rethink unseen set" and unseen.letterboxed
    assert names(unseen) == ["home-mj-IMG_1_png.rf.h1.jpg", "home-mj-IMG_2_png.rf.h3.jpg",
                             "rotated_home-mj-IMG_1_png.rf.h2.jpg"]

    every = photo_parts("all-held-out", data, str(tmp_path))
    assert [p.name for p in every] == ["HK valid", "rethink test", "rethink unseen set"]
    assert [names(p) for p in every] == [names(valid), names(test), names(unseen)]
    with pytest.raises(ValueError, match="unknown photos"):
        photo_parts("test", data, str(tmp_path))


def test_the_tuning_photos_are_those_the_models_were_tuned_on_and_no_test_photo(tmp_path):
    from benchmarks.recognize_eval import photo_parts
    from datasets.splits import split

    data = _fake_data(tmp_path)
    sp = split(data)
    hk, rethink = photo_parts("tuning", data, str(tmp_path))
    assert (hk.name, rethink.name) == ("HK tuning", "rethink tuning") and rethink.letterboxed and not hk.letterboxed
    assert [r.path for r in hk.records] == [r.path for r in sp.hk_tune] and len(hk.records) == 1
    assert [r.path for r in rethink.records] == [r.path for r in sp.rethink_tune] and len(rethink.records) == 4
    tested = {r.path for r in sp.hk_valid + sp.rethink_test + sp.unseen_set}
    assert not tested & {r.path for r in hk.records + rethink.records}


def test_tuning_real_leaves_out_hks_copies_turned_by_odd_angles(tmp_path):
    import numpy as np
    from PIL import Image

    from benchmarks.recognize_eval import photo_parts
    from datasets.splits import split

    data = _fake_data(tmp_path)
    sp = split(data)
    (path,) = [r.path for r in sp.hk_tune]
    turned = np.full((64, 64, 3), 114, np.uint8)  # a turned copy: its corners flat grey fill
    turned[20:44, 20:44] = np.random.default_rng(1).integers(0, 256, (24, 24, 3))
    Image.fromarray(turned).save(path)
    hk, rethink = photo_parts("tuning-real", data, str(tmp_path))
    assert hk.records == []
    assert [r.path for r in rethink.records] == [r.path for r in sp.rethink_tune] and rethink.letterboxed
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)).save(path)
    hk, _ = photo_parts("tuning-real", data, str(tmp_path))
    assert [r.path for r in hk.records] == [path] and hk.name == "HK tuning as taken"


def test_columns_name_each_detector(monkeypatch):
    from benchmarks.recognize_eval import columns

    monkeypatch.delenv("MJCAM_DETECTOR", raising=False)
    assert columns() == [("mjcam", "mjcam", None), ("peer", "peer", None)]
    assert [c[0] for c in columns("cand/best.onnx", "models/tile_detector.onnx")] == [
        "mjcam (detector best.onnx)", "mjcam (detector tile_detector.onnx)", "peer"]
    assert columns("cand/best.onnx", "models/tile_detector.onnx")[1] == (
        "mjcam (detector tile_detector.onnx)", "mjcam", "models/tile_detector.onnx")
    same = [c[0] for c in columns("a/det.onnx", "b/det.onnx")]
    assert len(set(same)) == 3  # one file name twice: still two columns
    monkeypatch.setenv("MJCAM_DETECTOR", "/x/mine.onnx")  # the detector mjcam will use, named
    assert columns()[0] == ("mjcam (detector mine.onnx)", "mjcam", None)


def test_launch_hands_the_detector_to_the_worker(monkeypatch, tmp_path):
    import json
    import subprocess

    import benchmarks.recognize_eval as ev

    calls = []

    def fake_run(cmd, **kw):
        calls.append((cmd, kw, open(cmd[-1]).read()))
        return subprocess.CompletedProcess(cmd, 0, stdout="noise\n" + json.dumps({"preds": [], "seconds": 1.0}), stderr="")

    monkeypatch.setattr(ev.subprocess, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    assert ev.launch("mjcam", ["a.jpg", "b.jpg"], "cand.onnx") == {"preds": [], "seconds": 1.0}
    cmd, kw, listed = calls[-1]
    assert cmd[-3:-1] == ["--worker", "mjcam"] and listed == "a.jpg\nb.jpg" and kw["cwd"] == ev.ROOT
    assert kw["env"]["MJCAM_DETECTOR"] == str(tmp_path / "cand.onnx")  # made absolute: the worker runs in ROOT
    assert kw["env"]["PATH"] == os.environ["PATH"]
    assert "MJCAM_REFINER" not in kw["env"] or kw["env"]["MJCAM_REFINER"] == os.environ.get("MJCAM_REFINER")
    ev.launch("mjcam", ["a.jpg"], "cand.onnx", "none")  # the candidate's boxes as they come
    assert calls[-1][1]["env"]["MJCAM_REFINER"] == "none"
    ev.launch("mjcam", ["a.jpg"], None, "ref.onnx")
    assert calls[-1][1]["env"]["MJCAM_REFINER"] == str(tmp_path / "ref.onnx")
    assert calls[-1][1]["env"].get("MJCAM_DETECTOR") == os.environ.get("MJCAM_DETECTOR")
    ev.launch("peer", ["a.jpg"])
    assert calls[-1][0][-2] == "peer" and calls[-1][1]["env"] is None  # the environment as it is

    monkeypatch.setattr(ev.subprocess, "run",
                        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, stdout="", stderr="boom"))
    with pytest.raises(SystemExit, match="mjcam worker failed"):
        ev.launch("mjcam", ["a.jpg"])


def test_all_held_out_prints_each_part_and_every_column(monkeypatch, tmp_path, capsys):
    import json

    import benchmarks.recognize_eval as ev

    data = _fake_data(tmp_path)
    detector = tmp_path / "old.onnx"
    detector.write_bytes(b"")
    launched, refiners = [], []

    def fake_launch(system, paths, detector=None, refiner=None):
        """The labels themselves as mjcam's reading, nothing from the baseline, every tile read 1m by the peer."""
        from datasets.readers import LabelledImage, read_yolo

        launched.append((system, detector, len(paths)))
        refiners.append(refiner)
        by_path = {}
        for root, sub in ((os.path.join(data, "roboflow-hk-chinese"), "valid"),
                          (os.path.join(data, "roboflow-rethink-bonus"), "")):
            by_path.update({r.path: r for r in read_yolo(root, sub)})
        preds = []
        for p in paths:
            r: LabelledImage = by_path[p]
            boxes = [] if detector else [b.box for b in r.boxes]
            codes = [("1m" if system == "peer" else b.code) for b in r.boxes][:len(boxes)]
            preds.append({"boxes": boxes, "codes": codes, "scores": [0.9] * len(boxes)})
        return {"preds": preds, "seconds": 2.0 * len(paths), "times": [1.0] * len(paths), "peak_mb": 100.0}

    monkeypatch.setattr(ev, "launch", fake_launch)
    monkeypatch.delenv("MJCAM_DETECTOR", raising=False)
    monkeypatch.delenv("MJCAM_REFINER", raising=False)
    out = tmp_path / "figures.json"
    ev.main(["--data", data, "--photos", "all-held-out", "--timing", "0", "--limit", "2",
             "--baseline-detector", str(detector), "--json", str(out)])
    text = capsys.readouterr().out
    # two photos of each rethink part (--limit: of each part), valid's one HK photo
    assert launched == [("mjcam", None, 5), ("mjcam", str(detector), 5), ("peer", None, 5)]
    assert refiners == [None, "none", None]  # the baseline with no refiner (none ships), whatever the shell says
    for head in ("\nHK valid: 1 photos", "\nrethink test: 2 photos", "\nrethink unseen set: 2 photos",
                 "\nall held-out photos: 5 photos"):
        assert head in text
    header = next(ln for ln in text.splitlines() if "mjcam (detector old.onnx)" in ln and "target" in ln)
    assert header.split() == ["mjcam", "mjcam", "(detector", "old.onnx)", "peer", "target"]
    recall = [ln for ln in text.splitlines() if ln.startswith("detection recall")]
    assert len(recall) == 4 and all(ln.split()[3:6] == ["100.0%", "0.0%", "100.0%"] for ln in recall)
    accuracy = [ln for ln in text.splitlines() if ln.startswith("tile accuracy")][-1]
    assert accuracy.split()[5:8] == ["100.0%", "0.0%", "50.0%"]  # the peer reads every tile 1m: half of them
    assert "mjcam against mjcam (detector old.onnx): recall +100.0%" in text
    figures = json.loads(out.read_text())
    assert list(figures) == ["mjcam", "mjcam (detector old.onnx)", "peer"]
    assert figures["mjcam (detector old.onnx)"]["detector"] == str(detector)
    assert figures["mjcam (detector old.onnx)"]["refiner"] == "none" and figures["mjcam"]["refiner"] == "none"
    assert list(figures["peer"]["parts"]) == ["HK valid", "rethink test", "rethink unseen set"]
    # a part's time: its photos' own (1 s each) and its share of loading the models (1 s a photo here)
    assert figures["peer"]["parts"]["rethink test"]["s_per_photo_640"] == 2.0
    assert figures["peer"]["s_per_photo_640"] == 2.0 and figures["peer"]["recall"] == 1.0

    launched.clear(), refiners.clear()  # a candidate with a refiner of its own, the baseline without
    mine = tmp_path / "my-refiner.onnx"
    mine.write_bytes(b"refiner")
    ev.main(["--data", data, "--photos", "valid", "--timing", "0", "--detector", str(detector), "--refiner", str(mine),
             "--baseline-detector", str(detector)])
    assert refiners == [str(mine), "none", None]
    assert "mjcam (detector old.onnx, refiner my-refiner.onnx)" in capsys.readouterr().out


def test_upscaled_cuts_letterbox_bars_and_keeps_the_photo_shape(tmp_path):
    from PIL import Image

    from benchmarks.recognize_eval import upscaled

    boxed = Image.new("RGB", (64, 64))
    boxed.paste((200, 180, 150), (0, 8, 64, 56))  # a 64x48 photo between black bars
    a, b = str(tmp_path / "boxed.png"), str(tmp_path / "square.png")
    boxed.save(a)
    boxed.save(b)
    out = tmp_path / "out"
    out.mkdir()
    big_a, big_b = upscaled([a, b], str(out), {a})
    with Image.open(big_a) as im:
        assert im.size == (4000, 3000) and min(im.convert("L").getextrema()) > 100  # no bars left
    with Image.open(big_b) as im:
        assert im.size == (4000, 3000) and im.convert("L").getpixel((2000, 10)) < 20  # stretched, bars kept


def test_grown_photos_keep_their_labels_on_the_tiles(tmp_path):
    import numpy as np
    from PIL import Image

    from benchmarks.recognize_eval import grown

    photo = np.zeros((64, 64, 3), np.uint8)
    photo[8:56] = (30, 120, 40)  # a 64x48 photo between black bars
    photo[20:40, 30:45] = 235  # one light tile
    for letterboxed, box in ((True, (30, 12, 45, 32)), (False, (30, 20, 45, 40))):
        path = tmp_path / f"p{letterboxed}.png"
        Image.fromarray(photo).save(path)
        out = tmp_path / f"out{letterboxed}"
        out.mkdir()
        (big,) = grown([LabelledImage(str(path), 64, 64, [LabelledBox("Wd", (30, 20, 45, 40))])], str(out), letterboxed)
        assert (big.width, big.height) == (4000, 3000) and big.boxes[0].code == "Wd"
        x0, y0, x1, y1 = (round(v) for v in big.boxes[0].box)
        assert (x0, x1) == (round(30 * 4000 / 64), round(45 * 4000 / 64)), big.boxes[0].box
        assert (y0, y1) == ((round(12 * 3000 / 48), round(32 * 3000 / 48)) if letterboxed
                            else (round(20 * 3000 / 64), round(40 * 3000 / 64))), big.boxes[0].box
        a = np.asarray(Image.open(big.path).convert("L")).astype(int)
        assert a[(y0 + y1) // 2, (x0 + x1) // 2] > 200 and a[y0 - 60, x0 - 60] < 150  # the tile where its label says


def test_copies_of_rethink_photos_keep_their_part_labels(tmp_path):
    from benchmarks.recognize_eval import _copy_path
    from datasets.readers import part_labelled

    src = "/data/roboflow-rethink-bonus/test/images/IMG_1.png"
    q = _copy_path(str(tmp_path), src)
    assert q.endswith(".jpg") and part_labelled(q, "F3") and not part_labelled(q, "3m")
    assert not part_labelled(_copy_path(str(tmp_path), "/data/roboflow-hk-chinese/valid/images/a.jpg"), "F3")
    assert _copy_path(str(tmp_path), q) == q  # a copy of a copy is not named twice


def test_closeups_fill_the_frame_with_one_labelled_tile():
    import json

    from benchmarks.closeup_eval import ROOT, sample_closeups

    with open(os.path.join(ROOT, "samples", "labels.json")) as fh:
        first = next(iter(json.load(fh).items()))
    leftmost = min(first[1], key=lambda t: t[1])[0]
    cases = sample_closeups()
    for fill in (0.6, 0.9):
        label, picture, codes = next(cases)
        h, w = picture.shape[:2]
        assert codes == [leftmost] and label.endswith(f"{fill:.0%}")
        assert max(h / 3000, w / 4000) == pytest.approx(fill, abs=0.002)  # the tile and its margin fill that much


def test_closeups_of_a_few_tiles_show_neighbours_in_order():
    import json

    from benchmarks.closeup_eval import ROOT, sample_closeups

    with open(os.path.join(ROOT, "samples", "labels.json")) as fh:
        name, tiles = next(iter(json.load(fh).items()))
    tiles = sorted(tiles, key=lambda t: t[1])
    cases = list(sample_closeups(3, every=3))
    starts = range(0, len(tiles) - 2, 3)
    assert [c[2] for c in cases[:2 * len(starts):2]] == [[t[0] for t in tiles[k:k + 3]] for k in starts]
    label, picture, _ = cases[1]
    assert label.startswith(f"{name} 0 ") and max(picture.shape[0] / 3000, picture.shape[1] / 4000) == pytest.approx(0.9, abs=0.002)


def test_closeups_of_a_few_tiles_never_span_the_cloth_between_two_groups():
    import json

    from benchmarks.closeup_eval import ROOT, sample_closeups

    with open(os.path.join(ROOT, "samples", "labels.json")) as fh:
        tiles = sorted(json.load(fh)["hand-layout.jpg"], key=lambda t: t[1])  # groups laid apart
    apart = {k for k in range(len(tiles) - 1) if tiles[k + 1][1] - tiles[k][3] > (tiles[k][4] - tiles[k][2]) / 4}
    assert len(apart) >= 4
    made = set()
    for n in (2, 3, 5):
        for label, _, codes in sample_closeups(n, every=3):
            name, k = label.split(" ")[:2]
            if name == "hand-layout.jpg":
                made.add((n, int(k)))
                assert codes == [t[0] for t in tiles[int(k):int(k) + n]]
                assert not apart & set(range(int(k), int(k) + n - 1)), label  # no gap inside the cut
    starts = {(n, k) for n in (2, 3, 5) for k in range(0, len(tiles) - n + 1, 3)}
    assert made == {(n, k) for n, k in starts if not apart & set(range(k, k + n - 1))} and made


def test_tuning_closeups_come_from_the_tuning_photos_only(tmp_path):
    from benchmarks.closeup_eval import tuning_closeups
    from datasets.splits import split

    data = _fake_data(tmp_path)
    sp = split(data)
    (tune,) = sp.hk_tune
    label = os.path.join(os.path.dirname(os.path.dirname(tune.path)), "labels",
                         os.path.basename(tune.path).rsplit(".", 1)[0] + ".txt")
    with open(label, "w") as fh:  # three tiles side by side in the HK tuning photo (2m, 1m, 2m from the left)
        fh.write("1 0.2 0.5 0.2 0.4\n0 0.4 0.5 0.2 0.4\n1 0.6 0.5 0.2 0.4\n")
    tuning = {os.path.basename(r.path)[:24] for r in split(data).hk_tune + split(data).rethink_tune}
    singles = list(tuning_closeups(data, 1, 6, seed=3))
    assert len(singles) == 12 and all(len(codes) == 1 for _, _, codes in singles)
    for (label_a, a, codes_a), (label_b, b, codes_b) in zip(singles[::2], singles[1::2]):  # each tile at two fills
        assert label_a.rsplit(" ", 1)[0] == label_b.rsplit(" ", 1)[0] and codes_a == codes_b
        assert max(a.shape[0] / 3000, a.shape[1] / 4000) == pytest.approx(0.6, abs=0.002)
        assert max(b.shape[0] / 3000, b.shape[1] / 4000) == pytest.approx(0.9, abs=0.002)
    assert {lab.split(" ")[0] for lab, _, _ in singles} <= tuning  # never a photo of the figures
    rows = list(tuning_closeups(data, 3, 2, seed=3))  # only the HK tuning photo has a row of three
    assert len(rows) == 4 and all(codes == ["2m", "1m", "2m"] for _, _, codes in rows)
    assert all(lab.startswith(os.path.basename(tune.path)[:24]) for lab, _, _ in rows)
    assert list(tuning_closeups(data, 5, 2, seed=3)) == []  # no row of five anywhere: none made, no endless search
