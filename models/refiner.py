"""Train the box refiner (the second look of :mod:`vision.locate`) and export it.

    pip install '.[train]'
    python -m models.refiner --data ../shared/data --work /tmp/mjcam-refine --out my-refiner.onnx

The detector finds almost every tile's centre but sizes its boxes poorly: on held-out
training photos a box drawn at the detector's centre with the labelled size would match at
IoU 0.5 nearly twice as often as the detector's own box. The refiner looks again: a square
window around a proposed box (twice its long side, WINDOW pixels) goes into a small network
that says where the tile at the window's centre is — its box's four sides as fractions of the
window. It sees the tile at one scale whatever the photo's, which the detector's stride-4 size
head cannot.

Data: every labelled tile of the Roboflow HK *train* split minus the held-out tenth of its
source photos (``datasets.readers.held_out_sources``, the same photos the detector and the
classifier hold out), turned copies included: their boxes are the upright hull of a turned
tile, the convention a photo of a slanted row is labelled in. Each epoch every tile is seen
through a fresh "proposal": its box shifted and scaled as the detector errs (sides 0.4-1.8x,
centre up to a quarter tile off), a quarter turn, light, blur, noise. The held-out photos'
tiles, with fixed proposals, choose the epoch. The *valid* split is never seen here.
Resumable (checkpoint in --work), seeded, sized for two CPU cores.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import cv2
import numpy as np
import torch
from torch import nn

from datasets.augment import photometric
from datasets.readers import held_out_sources, read_yolo
from models.detector import load_photos
from models.onnx_io import export_with_metadata, load_weights, weights_from_onnx
from mjcam.vision.locate import refine_window, window_input

WINDOW = 64
BLUR_SIGMA = (0.5, 2.5)  # --blur: the Gaussian's sigma in window pixels
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


def _cbr(cin: int, cout: int, s: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class RefineNet(nn.Module):
    """64x64 window in, the tile's box (x1, y1, x2, y2 as fractions of the window, centred on 0) out."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(_cbr(3, 24, 2), _cbr(24, 24), _cbr(24, 48, 2), _cbr(48, 48),
                                  _cbr(48, 64, 2), _cbr(64, 64), _cbr(64, 96, 2))  # 4x4
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(96 * 16, 128), nn.ReLU(inplace=True), nn.Linear(128, 4))

    def forward(self, x):
        return self.head(self.body(x))


def jitter(box, rng: np.random.Generator):
    """A proposal for a labelled box, wrong as the detector's are."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    common = rng.uniform(math.log(0.4), math.log(1.8))
    sw = math.exp(common + rng.normal(0, 0.15))
    sh = math.exp(common + rng.normal(0, 0.15))
    cx = (x1 + x2) / 2 + float(np.clip(rng.normal(0, 0.1), -0.25, 0.25)) * w
    cy = (y1 + y2) / 2 + float(np.clip(rng.normal(0, 0.1), -0.25, 0.25)) * h
    return (cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2)


def target(box, centre, side: float) -> np.ndarray:
    """A labelled box in window fractions (window centred at ``centre`` with side ``side``)."""
    cx, cy = centre
    return np.float32([(box[0] - cx) / side, (box[1] - cy) / side, (box[2] - cx) / side, (box[3] - cy) / side])


def quarter_turn(win: np.ndarray, t: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Turn a window and its target k quarter turns counter-clockwise: (x, y) -> (y, -x)."""
    for _ in range(k):
        win = np.ascontiguousarray(np.rot90(win))
        t = np.float32([t[1], -t[2], t[3], -t[0]])
    return win, t


def samples(items) -> list[tuple[int, tuple, tuple | None]]:
    """(photo, labelled box, no proposal: jitter one) for every labelled tile of a usable size."""
    return [(i, tuple(float(v) for v in b), None) for i, (_, boxes, _) in enumerate(items) for b in boxes
            if b[2] - b[0] >= 4 and b[3] - b[1] >= 4]


def detector_samples(items, proposer) -> list[tuple[int, tuple, tuple]]:
    """(photo, labelled box, proposal) for every box the shipped detector proposes whose centre lies
    on a labelled tile (the tile whose centre is nearest): the errors the refiner must mend, as
    they come — boxes drawn on an engraving, across two tiles, too tall."""
    out = []
    for i, (image, boxes, _) in enumerate(items):
        if not len(boxes):
            continue
        b = np.asarray(boxes, np.float32)
        centres = (b[:, :2] + b[:, 2:]) / 2
        for p in proposer(image):
            cx, cy = (p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2
            inside = (b[:, 0] <= cx) & (cx <= b[:, 2]) & (b[:, 1] <= cy) & (cy <= b[:, 3])
            if inside.any():
                d = np.where(inside, np.hypot(centres[:, 0] - cx, centres[:, 1] - cy), np.inf)
                out.append((i, tuple(float(v) for v in b[int(np.argmin(d))]), tuple(p.box)))
    return out


def normalise(win: np.ndarray) -> np.ndarray:
    return window_input(win, MEAN, STD)


class Windows(torch.utils.data.Dataset):
    def __init__(self, items, seed: int, fixed: bool = False, extra=(), blur: float = 0.0):
        self.items, self.seed, self.epoch, self.fixed = items, seed, 0, fixed
        self.blur = blur  # that share of the training windows blurred further (sigma BLUR_SIGMA)
        self.samples = samples(items) + list(extra)

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, i: int):
        rng = np.random.default_rng((self.seed, 0 if self.fixed else self.epoch, i))
        k, box, prop = self.samples[i]
        image = self.items[k][0]
        if prop is None:
            prop = jitter(box, rng)
        elif not self.fixed:  # a detector's proposal, moved a little
            w, h = prop[2] - prop[0], prop[3] - prop[1]
            d = rng.normal(0, 0.04, 4) * (w, h, w, h)
            prop = tuple(float(v) for v in np.asarray(prop) + d)
        win, centre, side = refine_window(image, prop, WINDOW)
        t = target(box, centre, side)
        if self.fixed:  # the held-out tiles: the proposal too, to compare with
            return torch.from_numpy(normalise(win)), torch.from_numpy(t), torch.from_numpy(target(prop, centre, side))
        win, t = quarter_turn(win, t, int(rng.integers(4)) if rng.random() < 0.5 else 0)
        if rng.random() < self.blur:  # a photo out of focus or shaken
            win = cv2.GaussianBlur(win, (0, 0), float(rng.uniform(*BLUR_SIGMA)))
        win = photometric(win, rng)
        return torch.from_numpy(normalise(win)), torch.from_numpy(t)


@torch.no_grad()
def evaluate(model: RefineNet, loader) -> dict:
    """Share of held-out proposals whose refined box (and, before, whose proposal) matches at IoU 0.5."""
    from datasets.crops import iou

    model.eval()
    hit = before = n = 0
    err = []
    for x, t, prop in loader:
        p = model(x).numpy()
        for pi, ti, qi in zip(p, t.numpy(), prop.numpy()):
            hit += iou(tuple(pi), tuple(ti)) >= 0.5
            before += iou(tuple(qi), tuple(ti)) >= 0.5
            err.append(np.abs(pi - ti).mean())
            n += 1
    model.train()
    return {"iou50": hit / max(1, n), "before": before / max(1, n), "l1": float(np.mean(err))}


def export(model: RefineNet, path: str) -> None:
    export_with_metadata(model, torch.zeros(1, 3, WINDOW, WINDOW), path, "window", ["box"],
                         {"window": {0: "n"}, "box": {0: "n"}},
                         {k: json.dumps(v) for k, v in {"kind": "box-refiner", "window": WINDOW, "context": 2.0,
                                                        "mean": list(MEAN), "std": list(STD)}.items()})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-refine")
    ap.add_argument("--out", default="box_refiner.onnx")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--proposals", action=argparse.BooleanOptionalAction, default=True,
                    help="also train on the detector's own proposals (three looks) of the training photos, and "
                         "choose the epoch on its proposals of the held-out ones (the shipped detector, or the one "
                         "MJCAM_DETECTOR names)")
    ap.add_argument("--init", metavar="STATE",
                    help="start from these weights (a .best state dict, a resumable .pt checkpoint or an exported "
                         ".onnx refiner of yours): a fine-tune")
    ap.add_argument("--blur", type=float, default=0.0, metavar="SHARE",
                    help="that share of the training windows blurred further (a Gaussian of sigma %g-%g window "
                         "pixels), as a photo out of focus" % BLUR_SIGMA)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.work, exist_ok=True)

    recs = read_yolo(os.path.join(args.data, "roboflow-hk-chinese"), "train")
    held = held_out_sources(recs, args.holdout, args.seed)
    train_items = load_photos([r for r in recs if r.source not in held], turned_sizes=True)
    hold_items = load_photos([r for r in recs if r.source in held], turned_sizes=True)
    extra, hold_extra = [], []
    if args.proposals:
        from mjcam.models.registry import sha256
        from mjcam.vision.locate import LearnedProposer

        detector = LearnedProposer().model_path  # the proposals kept are this detector's, named by its digest
        cache = os.path.join(args.work, f"proposals-{args.seed}-{args.holdout}-{sha256(detector)[:12]}.json")
        if os.path.exists(cache):
            with open(cache) as fh:
                extra, hold_extra = json.load(fh)
        else:
            proposer = LearnedProposer(extra_sides=(320, 256), zoom=False)  # two further looks, larger than the search's own
            extra, hold_extra = detector_samples(train_items, proposer), detector_samples(hold_items, proposer)
            with open(cache, "w") as fh:
                json.dump([extra, hold_extra], fh)
    train = Windows(train_items, args.seed, extra=[tuple(e) for e in extra], blur=args.blur)
    # the epoch is chosen on the held-out photos' real proposals when there are any
    hold = Windows(hold_items, args.seed + 1, fixed=True)
    if hold_extra:
        hold.samples = [tuple(e) for e in hold_extra]
    print(f"train: {len(train)} windows ({len(extra)} at detector proposals) of {len(train.items)} photos; "
          f"held out: {len(hold)} windows of {len(hold.items)} photos ({len(held)} sources)", flush=True)
    loader = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=1, drop_last=True)
    hold_loader = torch.utils.data.DataLoader(hold, batch_size=256)
    model = RefineNet()
    if args.init:
        if args.init.endswith(".onnx"):  # the BatchNorms' statistics from training windows
            cal = Windows(train_items, args.seed)
            calibration = torch.stack([cal[i][0] for i in range(0, len(cal), max(1, len(cal) // 512))])
            model.load_state_dict(weights_from_onnx(args.init, model, calibration))
        else:
            model.load_state_dict(load_weights(args.init))
        print(f"fine-tuning from {args.init}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * len(loader),
                                                pct_start=0.1)
    ckpt = os.path.join(args.work, f"refiner-{args.seed}.pt")
    start, best = 0, -1.0
    if os.path.exists(ckpt):
        st = torch.load(ckpt, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start, best = st["epoch"], st["best"]
        print(f"resumed at epoch {start}", flush=True)
    for epoch in range(start, args.epochs):
        train.epoch = epoch
        t0, tot = time.time(), 0.0
        for x, t in loader:
            loss = nn.functional.smooth_l1_loss(model(x), t, beta=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item()
        ev = evaluate(model, hold_loader)
        print(f"epoch {epoch + 1}/{args.epochs} loss {tot / len(loader):.4f} held out IoU>=0.5 {ev['iou50']:.3f} "
              f"(proposals {ev['before']:.3f}) "
              f"L1 {ev['l1']:.4f} {time.time() - t0:.0f} s", flush=True)
        if ev["iou50"] > best:
            best = ev["iou50"]
            torch.save(model.state_dict(), ckpt + ".best")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch + 1, "best": best}, ckpt)
    model.load_state_dict(torch.load(ckpt + ".best"))
    export(model, args.out)
    print(f"exported {args.out} (held-out IoU>=0.5 {best:.3f})", flush=True)


if __name__ == "__main__":
    main()
