"""Find the Roboflow training copies that were flipped left to right (mirrored characters).

    pip install '.[train]'
    python -m models.find_mirrored --data ../shared/data --work /tmp/mjcam-train --out models/mirrored.txt

A classifier trained on the mixed copies cannot say which way round a photo is: it has learnt
both. Two pieces of evidence that do not depend on it are combined instead:

1. **A chirality probe** — a small CNN that tells a tile crop from its mirror image, trained only
   on material that was never mirrored: the Camerash tile photos and the synthetic tiles drawn
   from fonts. Mirroring survives any turn, so the probe reads crops at any angle. Only tiles
   with handedness are used (:data:`HANDED`: characters, winds, green dragon, the bird of 1s,
   flowers and seasons); dots, most bamboos, red and white dragons look the same mirrored.
   Summed over a photo's handed tiles, its log-odds say whether the photo is mirrored. The
   probe then goes on training (``--rounds``) on the training copies it is already sure of,
   turned the right way round, to learn this tile set's own characters.
2. **The layout of the copies of one source photo.** Roboflow made three copies of each source
   photo (turned, sheared, sometimes flipped). Three tiles with codes that occur once in the
   photo form a triangle whose turning sense is kept by turns and shears and reversed by a flip,
   so two copies can be compared directly: same sense or mirror images of each other.

Copies tied by their layout share one decision, taken on the sum of their evidence; a copy that
can be tied to no other is decided alone. The probe is checked on the *valid* split, which
Roboflow did not augment (every photo there is the right way round) — a check only, nothing is
chosen on it. The list is read by ``models.train --mirrored`` (those copies are flipped back).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import time

import numpy as np

from datasets.augment import view
from datasets.crops import CropSet, crops_from_photos, crops_from_tile_images, load_rgb
from datasets.readers import LabelledImage, read_crop_csv, read_yolo, roboflow_subset
from datasets.synthetic import single_tiles
from mjcam.vision.preprocess import prepare, to_tensor

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
HANDED = frozenset([f"{n}m" for n in range(1, 10)] + ["E", "S", "W", "N", "Gd", "1s"]
                   + [f"F{n}" for n in range(1, 5)] + [f"S{n}" for n in range(1, 5)])


# ---------------------------------------------------------------- layout: copies compared with each other

def unique_centres(rec: LabelledImage) -> dict[str, tuple[float, float]]:
    """Centre of each tile whose code occurs once in the photo."""
    counts = collections.Counter(b.code for b in rec.boxes)
    return {b.code: ((b.box[0] + b.box[2]) / 2, (b.box[1] + b.box[3]) / 2) for b in rec.boxes if counts[b.code] == 1}


def relative_sense(a: LabelledImage, b: LabelledImage, min_sine: float = 0.2) -> int:
    """+1 when copies ``a`` and ``b`` have the same handedness, -1 when one mirrors the other, 0
    when their layouts cannot tell (fewer than three shared tiles off one line, or a tie)."""
    ua, ub = unique_centres(a), unique_centres(b)
    common = sorted(set(ua) & set(ub))
    votes = 0
    for trio in itertools.combinations(common[:12], 3):
        sense = []
        for u in (ua, ub):
            p = np.array([u[k] for k in trio], np.float64)
            v1, v2 = p[1] - p[0], p[2] - p[0]
            cross = v1[0] * v2[1] - v1[1] * v2[0]
            norm = np.linalg.norm(v1) * np.linalg.norm(v2)
            sense.append(0.0 if norm == 0 or abs(cross) < min_sine * norm else np.sign(cross))
        if sense[0] and sense[1]:
            votes += 1 if sense[0] == sense[1] else -1
    return int(np.sign(votes))


def tie_copies(recs: list[LabelledImage]) -> list[list[tuple[int, int]]]:
    """Groups of (index into recs, sign): copies of one source tied by layout, sign relative to the first."""
    by_source: dict[str, list[int]] = collections.defaultdict(list)
    for i, r in enumerate(recs):
        by_source[r.source].append(i)
    groups = []
    for idx in by_source.values():
        sign: dict[int, int] = {}
        for start in idx:
            if start in sign:
                continue
            sign[start] = 1
            group, todo = [start], [start]
            while todo:
                i = todo.pop()
                for j in idx:
                    if j not in sign:
                        rel = relative_sense(recs[i], recs[j])
                        if rel:
                            sign[j] = sign[i] * rel
                            group.append(j)
                            todo.append(j)
            groups.append([(i, sign[i]) for i in group])
    return groups


# ---------------------------------------------------------------- the probe

def never_mirrored(data: str, work: str, seed: int) -> CropSet:
    """Camerash tile photos and font-drawn tiles: crops that are certainly the right way round."""
    key = os.path.join(work, f"chirality-handed-{seed}.npz")
    if os.path.exists(key):
        return CropSet.load(key)
    cam = crops_from_tile_images([(p, c) for p, c in read_crop_csv(os.path.join(data, "camerash-tiles"))
                                  if c in HANDED], group="camerash")
    syn = single_tiles(sorted(HANDED), per_code=60, seed=seed + 100)
    crops = CropSet.concat([cam, syn])
    crops.save(key)
    return crops


def _mirrored(xs: np.ndarray) -> np.ndarray:
    return xs[:, :, ::-1]


def train_probe(crops: CropSet, steps: int, seed: int, threads: int, model=None, lr: float = 3e-3,
                make_view=view, other=_mirrored):
    """Train (or go on training) the probe: each view (``make_view(context crop, box size, rng)``)
    is shown as it is (label 0) or changed by ``other`` (1; by default mirrored). Also trains the
    which-way-up probe (``models.which_way_up``: its own views, turned half round)."""
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
        xs = np.stack([make_view(crops.images[i], crops.sizes[i], rng) for i in idx])
        ys = rng.integers(2, size=len(idx))
        xs[ys == 1] = other(xs[ys == 1])  # label 1: the mirror image (or the other thing told apart)
        x = torch.from_numpy(to_tensor(np.ascontiguousarray(xs), MEAN, STD))
        loss = loss_fn(model(x), torch.from_numpy(ys))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % 250 == 0:
            print(f"probe step {step + 1}/{steps} loss {loss.item():.3f} ({time.time() - t0:.0f} s)", flush=True)
    model.eval()
    return model


def handed_crops(recs: list[LabelledImage], work: str) -> CropSet:
    """Context crops of the handed tiles of ``recs`` as they are in the files (cached in ``work``)."""
    key = os.path.join(work, f"handed-train-{len(recs)}.npz")
    if os.path.exists(key):
        return CropSet.load(key)
    from mjcam.vision.labels import CLASSES

    parts = []
    for r in recs:  # one copy at a time: each crop is tagged with its copy's file name
        c = crops_from_photos([r], negatives_per_tile=0.0)
        c = c.subset([k for k, y in enumerate(c.labels) if CLASSES[y] in HANDED])
        c.groups = [os.path.basename(r.path)] * len(c)
        parts.append(c)
    crops = CropSet.concat(parts)
    crops.save(key)
    return crops


def oriented(crops: CropSet, flip: dict[str, bool]) -> CropSet:
    """The crops of the copies decided so far, mirrored ones flipped back: all the right way round."""
    idx = [k for k, g in enumerate(crops.groups) if g in flip]
    out = crops.subset(idx)
    for n, k in enumerate(idx):
        if flip[crops.groups[k]]:
            out.images[n] = out.images[n][:, ::-1]
    return out


def decide(odds: np.ndarray, groups: list[list[tuple[int, int]]], margin: float) -> dict[int, int]:
    """Per copy: +1 mirrored, -1 as it is, for groups whose summed evidence passes ``margin``."""
    out = {}
    for g in groups:
        total = sum(s * odds[i] for i, s in g)  # evidence that the group's first copy is mirrored
        if abs(total) >= margin:
            for i, s in g:
                out[i] = 1 if (total > 0) == (s > 0) else -1
    return out


def mirror_log_odds(model, rec: LabelledImage) -> float:
    """Sum over the photo's handed tiles of log P(mirrored) - log P(as is), each crop read both ways up."""
    import torch

    boxes = [b.box for b in rec.boxes if b.code in HANDED]
    if not boxes:
        return 0.0
    img = load_rgb(rec.path)
    xs = np.stack([prepare(img, b) for b in boxes])
    xs = np.concatenate([xs, xs[:, ::-1, ::-1]])  # half turn: handedness is kept
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.from_numpy(to_tensor(np.ascontiguousarray(xs), MEAN, STD))), 1).numpy()
    n = len(boxes)
    odds = (logp[:n, 1] - logp[:n, 0] + logp[n:, 1] - logp[n:, 0]) / 2
    return float(np.clip(odds, -4, 4).sum())  # one confident tile cannot outvote a photo


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-train")
    ap.add_argument("--out", default="models/mirrored.txt")
    ap.add_argument("--steps", type=int, default=1500, help="probe steps on never-mirrored tiles")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of self-training on the decided copies")
    ap.add_argument("--round-steps", type=int, default=800)
    ap.add_argument("--margin", type=float, default=3.0, help="log-odds a group needs to be trained on")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    import torch

    from .net import TileNet

    os.makedirs(a.work, exist_ok=True)
    rf = os.path.join(a.data, "roboflow-hk-chinese")
    valid = [r for r in read_yolo(rf, "valid") if roboflow_subset(r.path) == "hk"
             and any(b.code in HANDED for b in r.boxes)]

    def check(model, what: str) -> None:
        v = np.array([mirror_log_odds(model, r) for r in valid])
        print(f"{what}: on the valid split (never flipped) {int((v > 0).sum())} of {len(v)} photos read as "
              f"mirrored (median log-odds {np.median(v):+.1f})", flush=True)

    anchors = never_mirrored(a.data, a.work, a.seed)
    probe_path = os.path.join(a.work, f"chirality-probe-{a.seed}-{a.steps}.pt")
    if os.path.exists(probe_path):
        model = TileNet(2)
        model.load_state_dict(torch.load(probe_path))
        model.eval()
    else:
        model = train_probe(anchors, a.steps, a.seed, a.threads)
        torch.save(model.state_dict(), probe_path)
    check(model, "probe on never-mirrored tiles")

    recs = read_yolo(rf, "train")
    groups = tie_copies(recs)
    names = [os.path.basename(r.path) for r in recs]
    rf_crops = handed_crops(recs, a.work)
    for rnd in range(1, a.rounds + 1):
        odds = np.array([mirror_log_odds(model, r) for r in recs])
        flip = {names[i]: d > 0 for i, d in decide(odds, groups, a.margin).items()}
        train = CropSet.concat([anchors, oriented(rf_crops, flip)])
        print(f"round {rnd}: {len(flip)} copies decided ({sum(flip.values())} mirrored), "
              f"{len(train)} crops", flush=True)
        model = train_probe(train, a.round_steps, a.seed + rnd, a.threads, model=model, lr=1e-3)
        check(model, f"round {rnd}")

    odds = np.array([mirror_log_odds(model, r) for r in recs])
    verdict = decide(odds, groups, margin=1e-9)
    mirrored = sorted(names[i] for i, d in verdict.items() if d > 0)
    sizes = collections.Counter(len(g) for g in groups)
    with open(a.out, "w") as fh:
        fh.write("\n".join(mirrored) + "\n")
    print(f"{len(recs)} training copies in {len(groups)} layout groups (sizes {dict(sorted(sizes.items()))}); "
          f"{len(mirrored)} mirrored, {len(recs) - len(verdict)} without evidence; listed in {a.out}")


if __name__ == "__main__":
    main()
