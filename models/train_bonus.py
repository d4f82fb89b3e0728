"""Train the bonus-tile reader: a second look, at a larger input, at tiles the classifier takes
for a flower or season.

    python -m models.train_bonus --work /tmp/mjcam-bonus --init <the classifier's .best weights>

The tile classifier reads 64-pixel crops; the numerals and plants that tell ``F1``…``F4`` and
``S1``…``S4`` apart are a few pixels there. This network (the same design, 8 outputs) reads the
same tile at ``SIZE`` pixels and only shares out, among the eight bonus tiles, the probability the
classifier gives to bonus tiles as a whole (:mod:`vision.classify`). Trained on the flowers and
seasons of the Roboflow *train* photos (the held-out sources of :mod:`models.train` left out and
used to choose the epoch) and on rendered ones; the *valid* split is never seen here. With
``--other N`` it has a ninth output, ``other``, trained on N crops of the photos' other tiles:
its own say on whether the tile is a flower or season at all, which the classification stage
weighs with the classifier's (tried, not shipped: see the card).
Resumable and seeded like the classifier's trainer.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

from datasets.crops import CropSet, crops_from_photos, crops_from_tile_images
from datasets.readers import held_out_sources, read_crop_csv, read_yolo
from datasets import synthetic
from datasets.synthetic import single_tiles
from mjcam.scoring.tiles import CODES, FLOWERS, SEASONS
from mjcam.vision.classify import OTHER  # the ninth output of a reader trained with --other, as inference reads it
from mjcam.vision.labels import CLASS_INDEX
from mjcam.vision.preprocess import to_tensor

from .net import TileNet
from .train import MEAN, STD, Views, _cached, export_onnx, fit, holdout_batches, initial_weights

BONUS = tuple(FLOWERS + SEASONS)
OTHER_CODES = tuple(c for c in CODES if c not in BONUS)
OTHER_SHARE = 0.2  # of the training views
SIZE = 128  # network input
CONTEXT = 200  # context crops: the box's longer side is CONTEXT / 1.6 = 125 pixels


def build_data(data: str, work: str, holdout: float, seed: int, mirrored: frozenset[str], synthetic_per_code: int,
               extra_art: bool = False, glyphs: float = 0.0, other: int = 0, camerash: bool = False,
               brush: bool = False):
    """Training crops of flowers and seasons (photos and renders, cached in ``work``; ``other``:
    that many crops of other tiles from photos drawn at random; ``camerash``: the Camerash set's
    flowers and seasons too, group ``camerash``; ``brush``: the character-drawn ones' names written as
    by hand) and the held-out records."""
    os.makedirs(work, exist_ok=True)
    recs = read_yolo(os.path.join(data, "roboflow-hk-chinese"), "train")
    held = held_out_sources(recs, holdout, seed)
    train_recs = [r for r in recs if r.source not in held]
    photos = _cached(os.path.join(work, f"bonus-photos-{seed}-{holdout}-{len(mirrored)}-{CONTEXT}.npz"),
                     lambda: crops_from_photos(train_recs, negatives_per_tile=0, seed=seed, mirrored=mirrored,
                                               codes=BONUS, context=CONTEXT))
    parts = [photos]
    if camerash:
        cam = os.path.join(data, "camerash-tiles")
        parts.append(_cached(os.path.join(work, f"bonus-camerash-{CONTEXT}.npz"),
                             lambda: crops_from_tile_images([(p, c) for p, c in read_crop_csv(cam) if c in BONUS],
                                                            group="camerash", context=CONTEXT)))
    if synthetic_per_code:
        art = ("-gnome" if extra_art else "") + (f"-glyphs{glyphs:g}" if glyphs else "") + ("-brush" if brush else "")
        parts.append(_cached(os.path.join(work, f"bonus-synthetic-{synthetic_per_code}-{seed}-v{synthetic.VERSION}{art}.npz"),
                             lambda: single_tiles(list(BONUS), synthetic_per_code, seed=seed + 2000, context=CONTEXT,
                                                  height=(90, 220), extra_art=extra_art, glyphs=glyphs,
                                                  brush=brush)))
    if other:
        rnd = np.random.default_rng(seed + 4000)
        order = rnd.permutation(len(train_recs))
        picked, n = [], 0
        for i in order:  # whole photos at random until there are enough tiles
            picked.append(train_recs[int(i)])
            n += sum(b.code in OTHER_CODES for b in train_recs[int(i)].boxes)
            if n >= other:
                break
        crops = _cached(os.path.join(work, f"bonus-other-{other}-{seed}-{holdout}-{len(mirrored)}-{CONTEXT}.npz"),
                        lambda: crops_from_photos(picked, negatives_per_tile=0, seed=seed, mirrored=mirrored,
                                                  codes=OTHER_CODES, context=CONTEXT))
        parts.append(crops.subset(np.sort(rnd.permutation(len(crops))[:other])))
    return CropSet.concat(parts), [r for r in recs if r.source in held]


def sampling_weights(ys: np.ndarray, real: np.ndarray, outputs: int) -> np.ndarray:
    """How often each training crop is drawn (summing to 1): flowers and seasons class-balanced,
    photos (``real``) and renders each half of them; with a ninth output (``outputs`` 9) its
    crops, the photos' other tiles, ``OTHER_SHARE`` of all draws and the bonus tiles the rest."""
    weights = 1.0 / np.bincount(ys, minlength=outputs)[ys]
    rest = ys == len(BONUS)
    share = 1 - OTHER_SHARE if outputs > len(BONUS) else 1.0
    photo, render = real & ~rest, ~real & ~rest
    weights = weights * np.where(photo, 0.5 * share / max(1e-9, (weights * photo).sum()),
                                 0.5 * share / max(1e-9, (weights * render).sum()))
    if rest.any():
        weights[rest] = OTHER_SHARE / rest.sum()
    return weights


def accuracy(model: nn.Module, xs: np.ndarray, ys: np.ndarray) -> float:
    """Share read right, each input read as it is and turned half round (as inference does)."""
    model.eval()
    with torch.no_grad():
        a = torch.softmax(model(torch.from_numpy(to_tensor(xs, MEAN, STD))), 1)
        b = torch.softmax(model(torch.from_numpy(to_tensor(np.ascontiguousarray(xs[:, ::-1, ::-1]), MEAN, STD))), 1)
    return float(((a + b).argmax(1).numpy() == ys).mean())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="train the bonus-tile reader")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-bonus")
    ap.add_argument("--out", default="models/bonus_reader.onnx")
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--samples", type=int, default=6000, help="training views per epoch")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--holdout", type=float, default=0.1, help="as the classifier's trainer: same held-out sources")
    ap.add_argument("--mirrored", default="models/mirrored.txt", help="train copies that are mirrored (flipped back)")
    ap.add_argument("--synthetic", type=int, default=300, metavar="N", help="rendered tiles of each flower and season")
    ap.add_argument("--extra-art", action="store_true", help="render from GNOME Mahjongg's themes too")
    ap.add_argument("--glyphs", type=float, default=0.0, metavar="SHARE",
                    help="that share of the rendered tiles drawn as name character and numeral in a Chinese font")
    ap.add_argument("--brush", action="store_true",
                    help="those flowers' and seasons' names written as by hand, from more fonts (datasets.bonus_glyphs."
                         "brushed; apt-get install fonts-lxgw-wenkai fonts-cns11643-kai fonts-arphic-bkai00mp "
                         "fonts-cwtex-fs fonts-cwtex-yen fonts-cwtex-ming fonts-cwtex-heib fonts-klee)")
    ap.add_argument("--other", type=int, default=0, metavar="N",
                    help="a ninth output, 'other', trained on N crops of the photos' other tiles")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", help="start the layers before the last from these weights (e.g. the tile "
                    "classifier's .best state dict or ONNX file, or a checkpoint of this trainer); a reader's "
                    "(eight outputs, as --init-member K of the shipped file) the last layer too")
    ap.add_argument("--init-member", type=int, metavar="K", help="as models.train's: network K of a joined --init file")
    ap.add_argument("--camerash-weight", type=float, default=0.0, metavar="W",
                    help="train on the Camerash set's flowers and seasons too, each drawn W times as often as a "
                         "photo crop of its class (0: left out, as for the leave-one-source-out figure)")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    mirrored = frozenset(open(a.mirrored).read().split()) if a.mirrored else frozenset()
    t0 = time.time()
    train, hold_recs = build_data(a.data, a.work, a.holdout, a.seed, mirrored, a.synthetic, a.extra_art, a.glyphs,
                                  a.other, a.camerash_weight > 0, a.brush)
    outputs = BONUS + ((OTHER,) if a.other else ())
    label_map = {CLASS_INDEX[c]: outputs.index(c if c in BONUS else OTHER)
                 for c in BONUS + (OTHER_CODES if a.other else ())}
    # every flower and season of the held-out photos, all copies
    hx, hy = holdout_batches(hold_recs, None, mirrored, codes=BONUS, size=SIZE)
    hy = np.array([label_map[int(y)] for y in hy])
    if a.other:  # and the other tiles of one copy of each held-out source
        ox, oy = holdout_batches(hold_recs, 1, mirrored, codes=OTHER_CODES, size=SIZE)
        oy = np.array([label_map[int(y)] for y in oy])
    print(f"{len(train)} training crops, {len(hy)} held-out crops, data in {time.time() - t0:.0f}s", flush=True)
    ys = np.array([label_map[int(v)] for v in train.labels])
    weights = sampling_weights(ys, np.array([not g.startswith("synthetic-") for g in train.groups]), len(outputs))
    weights = weights * np.where(np.array(train.groups) == "camerash", a.camerash_weight, 1.0)
    sampler = torch.utils.data.WeightedRandomSampler(weights, num_samples=a.samples, replacement=True)
    ds = Views(train, a.seed, out=SIZE, label_map=label_map)
    loader = DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=1, persistent_workers=False)
    model = TileNet(len(outputs))
    if a.init:
        state = initial_weights(a.init, model, ds, member=a.init_member)
        own = model.state_dict()  # a classifier's last layer is replaced; a reader's own is kept
        state = {k: v for k, v in state.items() if not k.startswith("head.") or v.shape == own[k].shape}
        model.load_state_dict(state, strict=False)
    ckpt = os.path.join(a.work, f"bonus-checkpoint-{a.seed}.pt")
    run = {"epochs": a.epochs, "samples": a.samples, "batch": a.batch, "lr": a.lr, "holdout": a.holdout,
           "init": a.init, "mirrored": len(mirrored), "synthetic": a.synthetic}
    if a.extra_art:  # only then, so that checkpoints of runs before the option still resume
        run["extra_art"] = True
    if a.glyphs:
        run["glyphs"] = a.glyphs
    if a.brush:
        run["brush"] = True
    if a.other:
        run["other"] = a.other
    if a.init_member is not None:
        run["init_member"] = a.init_member
    if a.camerash_weight:
        run["camerash_weight"] = a.camerash_weight

    def score(m):  # with a ninth output: the flowers and seasons count twice as much as the other tiles
        return accuracy(m, hx, hy) if not a.other else (2 * accuracy(m, hx, hy) + accuracy(m, ox, oy)) / 3

    best = fit(model, ds, loader, a.lr, a.epochs, ckpt, run, score)
    meta = {"classes": list(outputs), "input_size": SIZE, "mean": list(MEAN), "std": list(STD),
            "layout": "NCHW RGB", "heldout_accuracy": round(best, 4), "role": "bonus reader",
            "trained_on": "flowers and seasons of roboflow-hk-chinese train (minus held-out sources)"
                          + (" + rendered flowers and seasons" if a.synthetic else "")
                          + (f" ({a.glyphs:g} of them as characters in Chinese fonts"
                             + (", names written as by hand" if a.brush else "") + ")" if a.synthetic and a.glyphs else "")
                          + (f" + {a.other} other tiles of the photos (output 'other')" if a.other else "")
                          + (" + camerash-tiles flowers and seasons" if a.camerash_weight else ""),
            "epochs": a.epochs, "seed": a.seed, "mirrored_flipped_back": len(mirrored),
            "fine_tuned_from": os.path.basename(a.init) if a.init else ""}
    export_onnx(model, a.out, meta, SIZE)
    print(f"wrote {a.out} (held-out accuracy {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
