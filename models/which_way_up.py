"""Train the which-way-up probe: tells a tile standing the right way up from one upside down.

    pip install '.[train]'
    python -m models.which_way_up --data ../shared/data --work /tmp/mjcam-up --out models/tile_up.onnx

The tile classifier reads a tile the same either way up (it was trained so), so it cannot say
whether a hand was photographed from the player's seat or from across the table — and grouped as
the photo shows it from across the table, or turned a quarter the other way, the hand is grouped
in reverse order and its winning tile (the lone tile at the row's end) looked for at the wrong end. The probe is the classifier's
network with two outputs: up, down.

1. **Synthetic tiles**, drawn the right way up from the fonts and tile art the classifier's
   synthetic tiles use, are shown as they are (up) or turned half round (down), at small slants,
   relit, blurred and noised.
2. **The Roboflow training copies** (the held-out source photos left out, as for every model):
   Roboflow turned many copies a quarter or half round, so which way up a copy is is not known.
   The probe reads each copy's tiles as the recogniser cuts them (a wide box turned a quarter
   clockwise) and sums its log-odds over the copy; copies it is sure of (``--margin``) are
   turned the right way and trained on too (``--rounds`` of self-training), so the probe learns
   this tile family's own engraving. Copies turned by an odd angle (grey corners) are left out.

The summed log-odds of a hand's tiles are what :class:`vision.pipeline.Recognizer` weighs.

    python -m models.which_way_up --check held-out   # the rule's check: ten held-out photos known upright
    python -m models.which_way_up --check valid      # the record: valid as taken and turned
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import cv2
import numpy as np

from datasets.augment import photometric
from datasets.crops import CropSet, crops_from_photos, load_rgb
from datasets.readers import held_out_sources, read_yolo, roboflow_subset
from datasets.synthetic import single_tiles
from mjcam.scoring.tiles import CODES
from mjcam.vision.preprocess import INPUT_SIZE, letterbox, prepare, to_tensor, upright

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
CLASSES = ["up", "down"]
CLIP = 4.0  # no one tile's log-odds count for more than this in a hand's sum


def up_view(ctx: np.ndarray, size_wh, rng: np.random.Generator) -> np.ndarray:
    """A probe input from a context crop whose tile stands (or lies, as cut by the recogniser)
    the right way up: a small slant, the box moved and scaled a little, a wide box turned a
    quarter clockwise as the recogniser turns it, relit."""
    c = ctx.shape[0]
    angle = float(np.clip(rng.normal(0, 6), -15, 15))
    m = cv2.getRotationMatrix2D((c / 2, c / 2), angle, 1.0)
    img = cv2.warpAffine(ctx, m, (c, c), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = math.radians(angle)
    bw, bh = float(size_wh[0]), float(size_wh[1])
    w = (abs(bw * math.cos(a)) + abs(bh * math.sin(a))) * rng.uniform(0.92, 1.1)
    h = (abs(bw * math.sin(a)) + abs(bh * math.cos(a))) * rng.uniform(0.92, 1.1)
    cx, cy = c / 2 + rng.normal(0, 0.04) * w, c / 2 + rng.normal(0, 0.04) * h
    x1, y1 = int(round(max(0, cx - w * 0.56))), int(round(max(0, cy - h * 0.56)))
    x2, y2 = int(round(min(c, cx + w * 0.56))), int(round(min(c, cy + h * 0.56)))
    crop = upright(img[y1:max(y2, y1 + 2), x1:max(x2, x1 + 2)])
    return photometric(letterbox(crop, INPUT_SIZE), rng)


def _half_turned(xs: np.ndarray) -> np.ndarray:
    return xs[:, ::-1, ::-1]


def train_probe(crops: CropSet, steps: int, seed: int, threads: int, model=None, lr: float = 3e-3):
    """Train (or go on training) the probe: each view shown as it is (label 0) or turned half round (1)."""
    import torch
    from torch import nn

    from .net import TileNet

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    model = model or TileNet(2)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    t0 = time.time()
    for step in range(steps):
        idx = rng.integers(len(crops), size=128)
        xs = np.stack([up_view(crops.images[i], crops.sizes[i], rng) for i in idx])
        ys = rng.integers(2, size=len(idx))
        xs[ys == 1] = _half_turned(xs[ys == 1])
        loss = loss_fn(model(torch.from_numpy(to_tensor(np.ascontiguousarray(xs), MEAN, STD))), torch.from_numpy(ys))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % 250 == 0:
            print(f"probe step {step + 1}/{steps} loss {loss.item():.3f} ({time.time() - t0:.0f} s)", flush=True)
    model.eval()
    return model


def down_log_odds(model, image: np.ndarray, boxes) -> float:
    """Sum over the boxes of log P(down) - log P(up), each clipped to ``CLIP``: evidence that the
    tiles, cut as the recogniser cuts them, are upside down."""
    import torch

    if not len(boxes):
        return 0.0
    xs = np.stack([prepare(image, b) for b in boxes])
    with torch.no_grad():
        logits = model(torch.from_numpy(to_tensor(xs, MEAN, STD))).numpy().astype(np.float64)
    return float(np.clip(logits[:, 1] - logits[:, 0], -CLIP, CLIP).sum())  # = log P(down) - log P(up)


def export(model, path: str) -> None:
    import torch

    from .onnx_io import export_with_metadata

    export_with_metadata(model, torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE), path, "crops", ["logits"],
                         {"crops": {0: "n"}, "logits": {0: "n"}},
                         {k: json.dumps(v) for k, v in {"kind": "tile-up", "classes": CLASSES, "input_size": INPUT_SIZE,
                                                        "mean": list(MEAN), "std": list(STD), "clip": CLIP}.items()})


# The rule's held-out check (models/EXPERIMENTS.md): the held-out copies not turned by an odd angle that show a
# hand standing upright by eye (their file names, as far as they are unique)
HELD_OUT_UPRIGHT = ("385505934_714106667161702_2327266783355569670_n_jpg.rf.22d254c1",
                    "385531081_660597576280267_7445939836158791472_n_jpg.rf.07253af4",
                    "418610692_1120125255553167_8662214007651062034_n_jpg.rf.1004a1d4",
                    "hand_012_jpg.rf.2407ad08", "hand_026_jpg.rf.26961dae", "hand_068_jpg.rf.2d95b25d",
                    "hand_104_jpg.rf.2a6a1d3e", "hand_125_jpg.rf.6214a7f3", "hand_128_jpg.rf.002b4c85",
                    "hand_139_jpg.rf.10980170")
TOPS = ("up", "left", "down", "right")  # where the tiles' tops point after each quarter turn counter-clockwise


def check(data: str, photos: str) -> None:
    """Each photo read by the shipped recogniser as taken and turned 90°, 180° and 270° counter-
    clockwise. ``held-out``: photos known upright, each reading right, wrong or undecided. ``valid``:
    which way up each decided reading says the photo was taken, and whether its turns agree."""
    from collections import Counter

    from mjcam.vision.pipeline import default_recognizer

    rf = os.path.join(data, "roboflow-hk-chinese")
    if photos == "held-out":
        recs = [r for r in read_yolo(rf, "train") if os.path.basename(r.path).startswith(HELD_OUT_UPRIGHT)]
    else:
        recs = [r for r in read_yolo(rf, "valid") if roboflow_subset(r.path) == "hk"]
    rec = default_recognizer()
    verdicts, photo_kinds = Counter(), Counter()
    for r in recs:
        image = load_rgb(r.path)
        taken = []  # per decided reading: which way the tiles' tops pointed in the photo as taken
        for k in range(4):
            tops = rec.read(np.ascontiguousarray(np.rot90(image, k))).tops
            if tops is None:
                verdicts[k * 90, "undecided"] += 1
                continue
            taken.append(TOPS[(TOPS.index(tops) - k) % 4])
            if photos == "held-out":
                verdicts[k * 90, "right" if tops == TOPS[k] else "wrong"] += 1
        if photos == "valid":
            if not taken:
                photo_kinds["never decided"] += 1
                continue
            way, n = Counter(taken).most_common(1)[0]
            photo_kinds[f"taken {way}, " + ("every decided turn agreeing" if n == len(taken) else "turns disagreeing")] += 1
            verdicts["decided"] += len(taken)
            verdicts["agreeing with the photo's most decided way"] += n
    print(f"{len(recs)} {photos} photos, 4 turns each")
    for k, v in sorted(verdicts.items(), key=str):
        print(f"  {k}: {v}")
    for k, v in sorted(photo_kinds.items()):
        print(f"  photos {k}: {v}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-up")
    ap.add_argument("--out", default="models/tile_up.onnx")
    ap.add_argument("--per-code", type=int, default=50, help="synthetic tiles of each code")
    ap.add_argument("--steps", type=int, default=1200, help="steps on the synthetic tiles")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of self-training on the decided copies")
    ap.add_argument("--round-steps", type=int, default=800)
    ap.add_argument("--margin", type=float, default=6.0, help="log-odds a copy needs to be trained on")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", choices=("held-out", "valid"),
                    help="no training: read these photos turned four ways with the shipped recogniser")
    a = ap.parse_args(argv)
    if a.check:
        check(a.data, a.check)
        return
    import torch

    from datasets.readers import filled_corners
    from .net import TileNet

    os.makedirs(a.work, exist_ok=True)
    key = os.path.join(a.work, f"up-synthetic-{a.per_code}-{a.seed}.npz")
    if os.path.exists(key):
        synthetic = CropSet.load(key)
    else:
        synthetic = single_tiles(list(CODES), per_code=a.per_code, seed=a.seed + 200)
        synthetic.save(key)
    path = os.path.join(a.work, f"up-probe-{a.seed}-{a.steps}.pt")
    if os.path.exists(path):
        model = TileNet(2)
        model.load_state_dict(torch.load(path))
        model.eval()
    else:
        model = train_probe(synthetic, a.steps, a.seed, a.threads)
        torch.save(model.state_dict(), path)

    rf = os.path.join(a.data, "roboflow-hk-chinese")
    recs = read_yolo(rf, "train")
    held = held_out_sources(recs, 0.1, 1)
    recs = [r for r in recs if r.source not in held and r.boxes]
    images = {r.path: load_rgb(r.path) for r in recs}
    recs = [r for r in recs if filled_corners(images[r.path]) < 2]
    print(f"{len(synthetic)} synthetic tiles; {len(recs)} training copies not turned by an odd angle", flush=True)
    for rnd in range(1, a.rounds + 1):
        odds = [down_log_odds(model, images[r.path], [b.box for b in r.boxes]) for r in recs]
        sure = [(r, o > 0) for r, o in zip(recs, odds) if abs(o) >= a.margin]
        parts = [synthetic]
        for r, down in sure:
            c = crops_from_photos([r], negatives_per_tile=0.0)
            if down:  # turned half round about its centre: the box stays where it was, the right way up
                c.images = np.ascontiguousarray(c.images[:, ::-1, ::-1])
            parts.append(c)
        train = CropSet.concat(parts)
        print(f"round {rnd}: {len(sure)} copies decided ({sum(d for _, d in sure)} upside down), "
              f"{len(train)} crops", flush=True)
        done = os.path.join(a.work, f"up-probe-{a.seed}-{a.steps}-round{rnd}-{a.round_steps}.pt")
        if os.path.exists(done):  # (resumed: this round was trained already)
            model.load_state_dict(torch.load(done))
            model.eval()
            continue
        model = train_probe(train, a.round_steps, a.seed + rnd, a.threads, model=model, lr=1e-3)
        torch.save(model.state_dict(), done)
    export(model, a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
