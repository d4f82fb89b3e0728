"""Training helpers: a run started from earlier weights (a bare state dict or a resumable checkpoint), the
shipped networks rebuilt from their ONNX files, the detector's packs of photos and its view scales."""

import os

import pytest

torch = pytest.importorskip("torch")

from models.onnx_io import load_weights  # noqa: E402


def test_weights_from_a_state_dict_or_a_checkpoint(tmp_path):
    net = torch.nn.Linear(3, 2)
    bare, full = tmp_path / "w.pt.best", tmp_path / "w.pt"
    torch.save(net.state_dict(), bare)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 3, "best": 0.5}, full)
    for path in (bare, full):
        other = torch.nn.Linear(3, 2)
        other.load_state_dict(load_weights(str(path)))
        assert torch.equal(other.weight, net.weight) and torch.equal(other.bias, net.bias)


def _reads_as_the_file(net, path: str, probe) -> None:
    """The rebuilt network (in eval mode) gives the ONNX file's outputs for ``probe``."""
    import numpy as np
    import onnxruntime as ort

    net.eval()
    session = ort.InferenceSession(path)
    want = session.run(None, {session.get_inputs()[0].name: probe.numpy()})[0]
    with torch.no_grad():
        got = net(probe).numpy()
    assert np.abs(got - want).max() < 1e-4 * max(1.0, np.abs(want).max())


def test_a_shipped_onnx_model_becomes_the_same_network_again():
    pytest.importorskip("onnx")
    from models.net import TileNet
    from models.onnx_io import weights_from_onnx

    gen = torch.Generator().manual_seed(0)
    calibration, probe = torch.randn(32, 3, 64, 64, generator=gen), torch.randn(8, 3, 64, 64, generator=gen)
    state = weights_from_onnx("models/tile_up.onnx", TileNet(2), calibration)  # the which-way-up probe
    fresh = TileNet(2)
    fresh.load_state_dict(state)
    _reads_as_the_file(fresh, "models/tile_up.onnx", probe)
    # the BatchNorms carry the calibration batch's statistics
    stem_out = torch.nn.functional.conv2d(calibration, fresh.features[0].weight, stride=2, padding=1)
    assert torch.allclose(fresh.features[1].running_mean, stem_out.mean((0, 2, 3)), atol=1e-4)


def test_the_shipped_classifier_becomes_the_same_network_again():
    """``models.train --init tile_classifier.onnx``: the EfficientNet-Lite0 classifier, its batch
    norms folded away by the export, rebuilt to give the shipped file's readings."""
    pytest.importorskip("onnx")
    from models.backbones import BACKBONES
    from models.onnx_io import weights_from_onnx

    path = "models/tile_classifier.onnx"
    gen = torch.Generator().manual_seed(1)
    calibration, probe = torch.randn(16, 3, 96, 96, generator=gen), torch.randn(4, 3, 96, 96, generator=gen)
    net = BACKBONES["efficientnet-lite0"](44)
    net.load_state_dict(weights_from_onnx(path, net, calibration))
    _reads_as_the_file(net, path, probe)


def test_flowers_and_seasons_drawn_by_name_for_the_classifier():
    import numpy as np

    from datasets.bonus_glyphs import NAMES, cjk_fonts
    from models.train import bonus_glyph_tiles
    from mjcam.vision.labels import CLASSES

    if not cjk_fonts():
        with pytest.raises(SystemExit, match="fonts-noto-cjk"):
            bonus_glyph_tiles(1, 0, 96)
        return
    crops = bonus_glyph_tiles(2, 0, 96)
    assert sorted(CLASSES[k] for k in crops.labels) == sorted(list(NAMES) * 2)
    assert crops.images[0].shape == (96, 96, 3)
    again = bonus_glyph_tiles(2, 0, 96)
    assert np.array_equal(crops.images, again.images)  # seeded: the same fonts draw the same faces
    brushed = bonus_glyph_tiles(2, 0, 96, brush=True)
    assert sorted(CLASSES[k] for k in brushed.labels) == sorted(list(NAMES) * 2)
    assert np.array_equal(brushed.images, bonus_glyph_tiles(2, 0, 96, brush=True).images)
    assert not np.array_equal(brushed.images, crops.images)  # other faces than the printed names


def test_name_drawn_faces_with_no_tile_font_stop_rather_than_come_out_empty(monkeypatch):
    import datasets.synthetic as synthetic
    from datasets.bonus_glyphs import cjk_fonts
    from models.train import bonus_glyph_tiles

    if not cjk_fonts():
        pytest.skip("no Chinese font installed")
    monkeypatch.setattr(synthetic, "available_fonts", lambda: [])
    monkeypatch.setattr(synthetic, "art_faces", lambda **kw: {})
    with pytest.raises(SystemExit, match="fonts-noto-core"):
        bonus_glyph_tiles(2, 0, 96)


def test_a_run_started_from_an_exported_file_must_match_it(tmp_path):
    pytest.importorskip("onnx")
    from models.train import exported_mismatch

    path = "models/tile_classifier.onnx"
    assert exported_mismatch(path, "efficientnet-lite0", 96) is None
    assert "--backbone efficientnet-lite0" in exported_mismatch(path, "mobilenetv2", 96)
    assert "--size 96" in exported_mismatch(path, "efficientnet-lite0", 128)
    assert "no classifier metadata" in exported_mismatch("models/tile_up.onnx", "efficientnet-lite0", 96)
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    assert "not a readable ONNX file" in exported_mismatch(str(broken), "efficientnet-lite0", 96)


def test_a_network_of_other_classes_keeps_its_own_last_layer():
    pytest.importorskip("onnx")
    from models.net import TileNet
    from models.onnx_io import weights_from_onnx

    net = TileNet(8)
    before = net.head[-1].weight.clone()
    weights_from_onnx("models/tile_up.onnx", net, torch.randn(4, 3, 64, 64))
    assert torch.equal(net.head[-1].weight, before)
    with pytest.raises(ValueError, match="convolutions"):
        weights_from_onnx("models/tile_up.onnx", torch.nn.Sequential(torch.nn.Linear(2, 2)), torch.randn(1, 2))


def test_an_exported_box_refiner_becomes_the_same_network_again(tmp_path):
    pytest.importorskip("onnx")
    from models.onnx_io import weights_from_onnx
    from models.refiner import WINDOW, RefineNet, export

    gen = torch.Generator().manual_seed(0)
    calibration = torch.randn(32, 3, WINDOW, WINDOW, generator=gen)
    probe = torch.randn(8, 3, WINDOW, WINDOW, generator=gen)
    torch.manual_seed(1)
    made = RefineNet()
    made.train()
    made(calibration)  # batch statistics of its own, as a trained refiner has
    made.eval()
    path = str(tmp_path / "refiner.onnx")
    export(made, path)
    fresh = RefineNet()  # two linear layers: both are taken
    fresh.load_state_dict(weights_from_onnx(path, RefineNet(), calibration))
    _reads_as_the_file(fresh, path, probe)



def test_detector_views_take_a_colour_cast_with_cast():
    import numpy as np

    from models.detector import random_view

    grey = np.full((300, 400, 3), 128, np.uint8)
    boxes = np.array([[50.0, 60.0, 90.0, 120.0]], np.float32)
    spread = []
    for cast in (0.0, 1.0):
        views = [random_view(grey, boxes, np.random.default_rng(i), cast=cast)[0] for i in range(24)]
        # how far red and blue lie apart, as a share of the level, over the views
        spread.append(np.mean([abs(float(v[..., 0].mean()) - float(v[..., 2].mean())) / max(1.0, float(v.mean()))
                               for v in views]))
    assert spread[1] > 1.5 * spread[0]

def test_refiner_windows_blurred_further_with_blur():
    import numpy as np

    from models.refiner import Windows

    rng = np.random.default_rng(0)
    photo = (rng.random((200, 300, 3)) * 255).astype(np.uint8)  # fine detail everywhere
    items = [(photo, [(100.0, 60.0, 140.0, 115.0)] * 16, None)]

    def sharpness(ds):  # mean absolute step between neighbouring pixels, over the windows
        return float(np.mean([np.abs(np.diff(ds[i][0].numpy(), axis=2)).mean() for i in range(len(ds))]))

    plain, blurred = Windows(items, 1), Windows(items, 1, blur=1.0)
    assert len(blurred) == len(plain) == 16
    assert sharpness(blurred) < 0.7 * sharpness(plain)


def test_a_pack_keeps_each_picture_small_with_its_boxes_and_marks(tmp_path):
    import numpy as np

    from models.detector import PACK_SIDE, kept

    rng = np.random.default_rng(0)
    made = []

    def make():
        made.append(1)
        out = []
        for k, (h, w) in enumerate(((600, 800), (300, 200))):
            img = np.full((h, w, 3), 60, np.uint8)
            img[100:200, 50:120] = 250
            out.append((img + rng.integers(0, 5, img.shape).astype(np.uint8), np.float32([[50, 100, 120, 200]]), k == 0))
        return out

    path = str(tmp_path / "photos-0.npz")
    first = kept(path, make, pack=True)
    again = kept(path, make, pack=True)
    assert len(made) == 1 and os.path.exists(str(tmp_path / "photos-0-pack.npz"))
    for items in (first, again):
        (big, big_boxes, big_mark), (small, small_boxes, small_mark) = items
        s = PACK_SIDE / 800
        assert big.shape == (round(600 * s), PACK_SIDE, 3) and small.shape == (300, 200, 3)
        assert np.allclose(big_boxes, [[50 * s, 100 * s, 120 * s, 200 * s]]) and np.allclose(small_boxes, [[50, 100, 120, 200]])
        assert (big_mark, small_mark) == (True, False)
        y1, x1, y2, x2 = (int(v) for v in (big_boxes[0, 1], big_boxes[0, 0], big_boxes[0, 3], big_boxes[0, 2]))
        assert big[y1 + 3:y2 - 3, x1 + 3:x2 - 3].mean() > 230 and big[:y1 - 3].mean() < 80  # the picture kept
    assert kept(str(tmp_path / "other.npz"), make, pack=False, save=False)[1][0].shape == (300, 200, 3)
    assert not os.path.exists(str(tmp_path / "other.npz"))


def test_more_close_ups_draw_the_other_view_scales_in_their_proportions():
    from models.detector import TILE_SCALES, tile_scales

    for close in (0.25, 0.4, 0.6):
        scales = tile_scales(close)
        assert abs(sum(share for *_, share in scales) - 1) < 1e-9 and scales[-1][2] == close
        assert [band[:2] for band in scales] == [band[:2] for band in TILE_SCALES]
        assert abs(scales[0][2] / scales[1][2] - TILE_SCALES[0][2] / TILE_SCALES[1][2]) < 1e-9


def test_a_photo_pack_is_refused_to_a_run_naming_other_photos_of_yours(tmp_path):
    import numpy as np

    from models.detector import _same_photos

    note = str(tmp_path / "photos-0-pack.txt")
    mine, other = str(tmp_path / "mine"), str(tmp_path / "other")
    _same_photos(note, [mine])  # no pack yet: noted, whatever is named
    _same_photos(note, [other])
    np.savez(str(tmp_path / "photos-0-pack.npz"), items=np.zeros(1))
    _same_photos(note, [other])  # the folders noted when the pack was made
    _same_photos(note, [os.path.join(str(tmp_path), ".", "other")])  # the same folder, named otherwise
    _same_photos(note, [])  # none named: the pack as it is
    with pytest.raises(SystemExit, match=f"holds {other}, not {mine}"):
        _same_photos(note, [mine])
    os.remove(note)  # a pack whose note is lost: taken as is, but not for a run naming photos
    _same_photos(note, [])
    with pytest.raises(SystemExit, match="no note of the photos it holds"):
        _same_photos(note, [other])


def test_the_detectors_heads_stay_float32_when_trained_in_bfloat16():
    """On a GPU the detector trains under bfloat16 autocast: a heat of 0.999 must not round to 1,
    where the loss's clamp would leave a background cell read surely as a tile without a gradient."""
    from models.detector import DetNet, loss_fn

    net = DetNet(width=8).eval()
    torch.nn.init.zeros_(net.heat.weight)
    torch.nn.init.constant_(net.heat.bias, 7.0)  # every cell read as a tile: sigmoid(7) = 0.99909
    with torch.autocast("cpu", dtype=torch.bfloat16):
        heat, size, off = net(torch.randn(1, 3, 64, 64))
    assert heat.dtype == size.dtype == off.dtype == torch.float32
    assert heat.max().item() < 0.9995
    none = torch.zeros_like(heat)  # no tile anywhere
    loss, _ = loss_fn((heat, size, off), none, torch.zeros_like(size), torch.zeros_like(off), none)
    loss.backward()
    assert net.heat.bias.grad.abs().item() > 1.0


def test_an_item_drawn_twice_in_an_epoch_gives_two_views():
    """Epochs drawn with replacement, several times the data's size on a GPU: each draw is a view
    of its own, for the detector's views and the classifier's."""
    import argparse

    import numpy as np

    from datasets.crops import CONTEXT, CropSet
    from models import detector, train
    from models.fitting import Numbered

    rng = np.random.default_rng(0)
    photo = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    items = [(photo, np.float32([[40, 30, 70, 75]]), True), (photo[::-1].copy(), np.float32([[20, 20, 50, 60]]), True)]
    args = argparse.Namespace(batch=8, workers=0)
    (x, *_), = list(detector._loader(detector.Views(items, seed=0), args, 8))
    flat = x.reshape(8, -1)
    assert all(not torch.equal(flat[a], flat[b]) for a in range(8) for b in range(a))

    crops = CropSet(rng.integers(0, 256, (2, CONTEXT, CONTEXT, 3), dtype=np.uint8), np.int64([0, 1]),
                    np.float32([[40, 56], [44, 60]]), ["a", "b"])
    views = train.Views(crops, 32)
    got = [views[key][0] for key in Numbered(torch.utils.data.RandomSampler(views, replacement=True, num_samples=6))]
    assert all(not torch.equal(got[a], got[b]) for a in range(6) for b in range(a))
    assert torch.equal(views[1][0], views[1][0])  # a view is still the same each time it is asked for


def test_a_detector_run_without_photos_stops_before_it_keeps_an_empty_pack(tmp_path):
    from models.detector import main

    work = tmp_path / "work"
    with pytest.raises(SystemExit, match="no labelled photos under"):
        main(["--data", str(tmp_path / "nowhere"), "--work", str(work), "--pack-only"])
    assert not [p for p in os.listdir(work) if p.endswith(".npz")]


def test_search_settings_stamped_into_a_detector_travel_with_it(tmp_path, monkeypatch, capsys):
    import shutil

    from mjcam.models.registry import path
    from mjcam.vision.locate import LearnedProposer
    from models.detector import main

    monkeypatch.delenv("MJCAM_SEARCH", raising=False)
    mine = str(tmp_path / "mine.onnx")
    shutil.copy(path("detector"), mine)
    main(["--stamp", mine, "--search", "AFAR_SIDES=64; PART_OF=2"])
    p = LearnedProposer(mine)
    assert (p.side, p.AFAR_SIDES, p.PART_OF) == (384, (64,), 2.0)  # the file's threshold and sizes kept too
    shipped = LearnedProposer()
    assert shipped.side == 384 and p.meta["threshold"] == shipped.meta["threshold"]
    main(["--stamp", mine])  # none: the search as shipped again
    assert LearnedProposer(mine).AFAR_SIDES == LearnedProposer.AFAR_SIDES
    with pytest.raises(SystemExit):
        main(["--stamp", mine, "--search", "PART_OF=-1"])
    assert "PART_OF takes a number above 0" in capsys.readouterr().err


def test_tiles_apart_are_also_laid_as_a_hand_with_like_tiles_side_by_side():
    """Half the scenes of real tiles apart lay them in groups of touching tiles, some groups one
    tile over again, with cloth between the groups; every tile pasted has its box."""
    import numpy as np

    from models.detector import photo_tiles_apart

    rng = np.random.default_rng(3)
    photos = []
    for _ in range(4):  # photos of distinct tiles (noise), each labelled, their sizes trusted
        img = np.full((200, 300, 3), 90, np.uint8)
        boxes = []
        for j in range(5):
            x = 10 + 55 * j
            img[40:110, x:x + 50] = rng.integers(0, 256, (70, 50, 3), dtype=np.uint8)
            boxes.append((x, 40, x + 50, 110))
        photos.append((img, np.float32(boxes), True))
    like_pairs = touching = wide_gaps = 0
    for canvas, boxes in photo_tiles_apart(photos, 40, seed=1):
        assert len(boxes) and (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()
        for a, b in zip(boxes, boxes[1:]):
            if b[1] != a[1]:  # a new line of tiles
                continue
            gap = b[0] - a[2]
            touching += gap <= 2
            wide_gaps += gap >= 0.3 * (a[2] - a[0])
            if gap <= 2 and (a[2] - a[0], a[3] - a[1]) == (b[2] - b[0], b[3] - b[1]):
                ta = canvas[int(a[1]):int(a[3]), int(a[0]):int(a[2])].astype(np.float32)
                tb = canvas[int(b[1]):int(b[3]), int(b[0]):int(b[2])].astype(np.float32)
                # the same tile lit a little otherwise: its pattern, not a new tile's noise
                like_pairs += np.corrcoef(ta.ravel(), tb.ravel())[0, 1] > 0.9
    assert like_pairs >= 10 and touching >= 20 and wide_gaps >= 20


def test_a_tile_labelled_by_part_teaches_neither_a_centre_nor_background():
    import numpy as np

    from models.detector import STRIDE, UNTAUGHT, loss_fn, part_region, random_view, targets

    whole, part = np.float32([[200, 40, 240, 96]]), np.float32([[40, 40, 64, 68]])  # the part: a tile's upper left
    heat, *_ = targets(whole, 256, 256)
    taught, *_ = targets(whole, 256, 256, untaught=np.float32([part_region(part[0])]))
    assert heat[0, 54 // STRIDE, 52 // STRIDE] == 0.0 and heat[0, 68 // STRIDE, 60 // STRIDE] == 0.0  # as background
    # the label's centre and the tile's own (60, 68) teach nothing; the whole tile's centre stays one
    assert taught[0, 54 // STRIDE, 52 // STRIDE] == np.float32(UNTAUGHT) == taught[0, 68 // STRIDE, 60 // STRIDE]
    assert taught[0, 68 // STRIDE, 220 // STRIDE] == 1.0 and (taught == 1.0).sum() == (heat == 1.0).sum() == 1
    # a network that finds a tile there loses nothing by it; where nothing is labelled it does
    pred = torch.full((1, 1, 64, 64), 0.01)
    pred[0, 0, 68 // STRIDE, 60 // STRIDE] = 0.9
    zeros = torch.zeros(1, 2, 64, 64)
    loss = [loss_fn((pred, zeros, zeros), torch.from_numpy(h)[None], zeros, zeros, torch.zeros(1, 1, 64, 64))[1][0]
            for h in (heat, taught)]
    assert loss[1] < loss[0] - 1.0
    # the region follows the view: turned, zoomed and shifted with the photo (where the label lies
    # shows as the difference from the same view of the photo with the label painted white)
    photo = np.full((300, 400, 3), 90, np.uint8)
    painted = photo.copy()
    painted[40:68, 40:64] = 250
    seen = 0
    for seed in range(24):
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        view, boxes, regions = random_view(photo, whole, rng_a, parts=part)
        alone, boxes_alone = random_view(photo, whole, rng_b)
        assert np.array_equal(view, alone) and np.array_equal(boxes, boxes_alone)  # the same view drawn
        assert len(regions) <= 1 and (regions >= 0).all() and (regions <= 256).all()
        white, _, _ = random_view(painted, whole, np.random.default_rng(seed), parts=part)
        ys, xs = np.nonzero(np.abs(white.astype(np.int16) - view).max(axis=2) > 40)
        if len(xs) > 20:  # the label in the view: inside the region
            seen += 1
            (x1, y1, x2, y2), = regions
            assert x1 <= xs.mean() <= x2 and y1 <= ys.mean() <= y2, seed
    assert seen >= 3


def test_photos_keep_the_labels_that_cover_part_of_a_tile_apart(tmp_path):
    import cv2
    import numpy as np

    from datasets.readers import read_yolo
    from models.detector import kept, load_photos

    root = tmp_path / "roboflow-rethink-bonus"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "a.jpg"), np.full((640, 640, 3), 120, np.uint8))
    (root / "data.yaml").write_text("names: ['c1', 'f1']\n")
    (root / "labels" / "a.txt").write_text("0 0.2 0.5 0.1 0.15\n1 0.6 0.5 0.05 0.06\n")
    recs = read_yolo(str(root), "")
    (img, boxes, trusted, parts), = load_photos(recs, parts=True)
    assert len(boxes) == 1 and np.allclose(parts, [[368, 300.8, 400, 339.2]], atol=0.5)
    assert len(load_photos(recs)[0]) == 3 and len(load_photos(recs)[0][1]) == 2  # without: every label a tile
    (small, small_boxes, _, small_parts), = kept(str(tmp_path / "p.npz"), lambda: load_photos(recs, parts=True), pack=True)
    s = small.shape[1] / 640
    assert s < 1 and np.allclose(small_parts, parts * s) and np.allclose(small_boxes, boxes * s)
    # grown to the whole tile a detector found round it, the label teaches that tile; where the
    # boxes found match it not (none holds it), it stays a part label
    whole = [368, 296, 404, 352]
    (_, grown, _, none_left), = load_photos(recs, parts=True, found={"a.jpg": [whole, [0, 0, 50, 50]]})
    assert len(grown) == 2 and np.allclose(grown[1], whole) and np.allclose(grown[0], boxes[0]) and len(none_left) == 0
    (_, kept_boxes, _, still), = load_photos(recs, parts=True, found={"a.jpg": [[100, 100, 140, 160]], "b.jpg": [whole]})
    assert np.allclose(kept_boxes, boxes) and np.allclose(still, parts)


def test_histogram_calibration_gets_inputs_of_one_shape_one_at_a_time(monkeypatch):
    import numpy as np

    from models import quantize

    batch = np.arange(3, dtype=np.float32)[:, None, None, None] * np.ones((1, 3, 8, 8), np.float32)
    feeds = [{"x": batch}, {"x": np.ones((2, 3, 16, 16), np.float32)}, {"x": np.full((1, 3, 8, 8), 3, np.float32)}]
    alike = quantize._alike(feeds)
    assert [f["x"].shape for f in alike] == [(1, 3, 8, 8)] * 4  # the commonest shape, one at a time
    assert [float(f["x"][0, 0, 0, 0]) for f in alike] == [0, 1, 2, 3]
    monkeypatch.setattr(quantize, "MOST_ALIKE", 2)
    assert [float(f["x"][0, 0, 0, 0]) for f in quantize._alike(feeds)] == [0, 2]  # spread over all


def test_the_layers_left_in_floating_point_are_each_networks_first_and_last():
    pytest.importorskip("onnx")
    from models import quantize
    from models.registry import SHIPPED

    assert quantize.ends(SHIPPED["classifier"].path) == ("/_conv_stem/Conv", "/_fc/Gemm")
    assert quantize.ends(SHIPPED["detector"].path) == ("/features.0/features.0.0/Conv",)  # its heads stay float anyway


def test_a_network_taught_for_8_bits_folds_its_batch_norms_and_exports_its_float_weights():
    from models import eight_bit
    from models.backbones import EfficientNetLite0

    torch.manual_seed(0)
    net = EfficientNetLite0(44).eval()
    for m in net.modules():  # batch norms that do something
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5), m.running_var.uniform_(0.5, 2.0), m.weight.data.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        before = net(x)
        eight_bit.fold_batch_norms(net)
        assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules())
        assert torch.allclose(net(x), before, atol=1e-5)  # the same network, folded
        weights = {k: v.clone() for k, v in net.state_dict().items()}
    assert eight_bit.ends(net) == ("_conv_stem", "_fc")
    eight_bit.rounded(net, eight_bit.ends(net))
    assert eight_bit.taught(net.state_dict())  # (a later run given these weights takes the same shape)
    net.train()
    net(x).sum().backward()  # the rounding lets the gradient through
    assert net._blocks[0]._depthwise_conv.parametrizations.weight.original.grad.abs().sum() > 0
    assert net._conv_stem.weight.grad is not None  # the first layer is left as it is
    assert not hasattr(net._conv_stem, "input_rounding") and not hasattr(net._fc, "input_rounding")  # and the last
    kept = net.state_dict()  # the inputs' running extremes travel with the weights: a resumed run rounds the same
    again = eight_bit.taught_shape(EfficientNetLite0(44))
    again.load_state_dict(kept)
    with torch.no_grad():
        assert torch.equal(again.eval()(x), net.eval()(x))
    net.eval()
    with torch.no_grad():
        seen = net(x)
    assert 0 < float((seen - before).abs().max()) < 0.1 * float(before.abs().max())  # rounded, not another network
    eight_bit.plain(net)
    assert not eight_bit.taught(net.state_dict())
    assert set(net.state_dict()) == set(weights)
    assert all(torch.equal(net.state_dict()[k], v) for k, v in weights.items())  # no step taken: the same weights
