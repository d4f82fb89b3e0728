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
