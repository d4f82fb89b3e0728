"""Train the tile detector (the learned proposal stage of :mod:`vision.locate`) and export it.

    pip install '.[train]'
    python -m models.detector --data ../shared/data --work /tmp/mjcam-det --out models/tile_detector.onnx

A small CenterNet-style network: an image in, at a quarter of its resolution a heat map of tile
centres, each centre's box size (log of side / stride) and sub-cell offset. One class — any tile,
face up, sideways or face down; the classifier reads what it is.

Data: the Roboflow HK *train* split minus a held-out tenth of its source photos. Its copies
turned by odd angles have loose boxes: they teach centres only (size and offset losses masked,
see :func:`sizes_trusted`); the held-out unturned copies choose the epoch and the heat
threshold. Plus synthetic hands in a row
(``datasets.synthetic.render_hand``: sideways claimed tiles, face-down kong ends, bonus tiles)
pasted on tables. The *valid* split is never seen here (``benchmarks/recognize_eval.py`` uses it).
Views: random zoom, shift and quarter turns, light, blur, noise, JPEG — never mirrored.
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
from torch.nn import functional as F

from datasets.augment import cast_light, photometric
from datasets.readers import held_out_sources, read_yolo
from datasets.synthetic import VERSION as SYNTHETIC_VERSION
from models.onnx_io import export_with_metadata, load_weights, weights_from_onnx
from mjcam.vision.locate import decode

STRIDE = 4
SIDE = 384
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


def _cbr(cin: int, cout: int, k: int = 3, s: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _dw(cin: int, cout: int, s: int) -> nn.Sequential:
    return nn.Sequential(_cbr(cin, cin, 3, s, cin), _cbr(cin, cout, 1))


class DetNet(nn.Module):
    """Encoder to 1/32, feature pyramid back up to 1/4, three heads."""

    def __init__(self, width: int = 48):
        super().__init__()
        self.stem = _cbr(3, 16, 3, 2)  # /2
        self.s4 = nn.Sequential(_dw(16, 32, 2), _dw(32, 32, 1))  # /4
        self.s8 = nn.Sequential(_dw(32, 48, 2), _dw(48, 48, 1))  # /8
        self.s16 = nn.Sequential(_dw(48, 80, 2), _dw(80, 80, 1), _dw(80, 80, 1))  # /16
        self.s32 = nn.Sequential(_dw(80, 128, 2), _dw(128, 128, 1), _dw(128, 128, 1))  # /32
        self.lat = nn.ModuleList([nn.Conv2d(c, width, 1) for c in (32, 48, 80, 128)])
        self.smooth = nn.ModuleList([_dw(width, width, 1) for _ in range(3)])
        self.body = _cbr(width, width, 3)
        self.heat = nn.Conv2d(width, 1, 1)
        self.size = nn.Conv2d(width, 2, 1)
        self.offset = nn.Conv2d(width, 2, 1)
        nn.init.constant_(self.heat.bias, -2.19)

    def forward(self, x):
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        p = self.lat[3](f32)
        for lat, sm, f in zip(self.lat[2::-1], self.smooth, (f16, f8, f4)):
            p = sm(lat(f) + F.interpolate(p, size=f.shape[-2:], mode="nearest"))
        y = self.body(p)
        return torch.sigmoid(self.heat(y)), self.size(y), torch.sigmoid(self.offset(y))


# ---------------------------------------------------------------- data

def targets(boxes: np.ndarray, h: int, w: int, stride: int = STRIDE):
    """Heat map (1, H, W), size and offset maps (2, H, W) and a mask (1, H, W) of box centres."""
    gh, gw = h // stride, w // stride
    heat = np.zeros((gh, gw), np.float32)
    size = np.zeros((2, gh, gw), np.float32)
    off = np.zeros((2, gh, gw), np.float32)
    mask = np.zeros((gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for x1, y1, x2, y2 in boxes:
        bw, bh = (x2 - x1) / stride, (y2 - y1) / stride
        cx, cy = (x1 + x2) / 2 / stride, (y1 + y2) / 2 / stride
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < gw and 0 <= iy < gh) or bw < 0.5 or bh < 0.5:
            continue
        sx, sy = max(0.5, bw / 6), max(0.5, bh / 6)
        g = np.exp(-((xx - ix) ** 2 / (2 * sx * sx) + (yy - iy) ** 2 / (2 * sy * sy)))
        np.maximum(heat, g, out=heat)
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(bw), math.log(bh))
        off[:, iy, ix] = (cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    return heat[None], size, off, mask[None]


def random_view(image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator, side: int = SIDE,
                cast: float = 0.0, turn: float = 10.0):
    """A side x side training view: quarter turn, zoom, shift, light; boxes follow (never mirrored).
    Half the views are also turned by up to ``turn`` degrees either way. With probability ``cast``
    the view is lit with a colour cast (:func:`datasets.augment.cast_light`)."""
    k = int(rng.integers(4)) if rng.random() < 0.5 else 0
    h, w = image.shape[:2]
    b = boxes.copy()
    for _ in range(k):  # turn 90° counter-clockwise: (x, y) -> (y, w - x)
        image = np.ascontiguousarray(np.rot90(image))
        b = np.stack([b[:, 1], w - b[:, 2], b[:, 3], w - b[:, 0]], axis=1) if len(b) else b
        h, w = w, h
    base = side / max(h, w)
    s = base * math.exp(rng.uniform(math.log(0.55), math.log(1.9)))
    tx = rng.uniform(min(0, side - w * s), max(0, side - w * s))
    ty = rng.uniform(min(0, side - h * s), max(0, side - h * s))
    angle = rng.uniform(-turn, turn) if rng.random() < 0.5 else 0.0  # a slight turn; boxes grow a little
    r = cv2.getRotationMatrix2D((w * s / 2, h * s / 2), angle, 1.0)  # scale, turn about the centre, shift
    m = np.zeros((2, 3), np.float32)
    m[:, :2] = r[:, :2] * s
    m[:, 2] = r[:, 2] + (tx, ty)
    pad = tuple(int(v) for v in rng.integers(0, 256, 3)) if rng.random() < 0.5 else (114, 114, 114)
    out = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=pad)
    if len(b):
        corners = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], axis=1)  # (n, 4, 2)
        pts = corners @ m[:, :2].T + m[:, 2]
        b = np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1)
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        keep = (cx >= 0) & (cx < side) & (cy >= 0) & (cy < side)
        b = np.clip(b[keep], 0, side)
    if cast and rng.random() < cast:
        out = cast_light(out, rng)
    out = photometric(out, rng)
    return out, b.reshape(-1, 4)


def filled_corners(img: np.ndarray, k: int = 16) -> int:
    """How many corners of the image are flat grey fill (a Roboflow copy turned by an odd angle)."""
    n = 0
    for c in (img[:k, :k], img[:k, -k:], img[-k:, :k], img[-k:, -k:]):
        f = c.reshape(-1, 3).astype(np.float32)
        n += float(f.std(axis=0).max()) < 2.0 and float(np.ptp(f.mean(axis=0))) < 2.0
    return n


def sizes_trusted(img: np.ndarray) -> bool:
    """Whether a labelled photo's box sizes can be learnt from. Roboflow copies turned by an odd
    angle (their corners are flat fill) keep each tile's centre but their boxes are boxes of
    turned boxes, looser than any real photo's: they teach where tiles are, not how big."""
    return filled_corners(img) < 2


def load_photos(records, max_side: int = 640, turned_sizes: bool = False):
    """(image, boxes, sizes trusted) of the photos that have labels, at most ``max_side`` pixels.
    ``turned_sizes``: trust the boxes of turned copies too (the box refiner learns from them: a
    turned copy's box is the upright hull of a turned tile, as a photo of a slanted row is labelled)."""
    out = []
    for r in records:
        if not r.boxes:  # a few copies lost their labels: they would teach that tiles are background
            continue
        img = cv2.cvtColor(cv2.imread(r.path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        boxes = np.float32([bx.box for bx in r.boxes]).reshape(-1, 4)
        trusted = turned_sizes or sizes_trusted(img)
        s = min(1.0, max_side / max(img.shape[:2]))
        if s < 1:
            img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        out.append((img, boxes * s, trusted))
    return out


def synthetic_hands(n: int, seed: int, white_dragons: float = 0.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rendered hands (a row with melds apart) pasted on a larger table, with their boxes;
    ``white_dragons``: the share of pungs and kongs made of white dragons (else any tile)."""
    from datasets.synthetic import render_hand, table_background
    from mjcam.scoring.tiles import CODES

    rng = np.random.default_rng(seed)
    suits = [c for c in CODES if c[-1] in "mps"]
    honours = ["E", "S", "W", "N", "Rd", "Gd", "Wd"]
    out = []
    for i in range(n):
        groups = []
        for _ in range(int(rng.integers(3, 6))):
            kind = rng.choice(["chow", "pung", "kong", "concealed_kong", "concealed"], p=[.3, .3, .1, .1, .2])
            if kind == "chow":
                start = rng.choice([c for c in suits if c[0] in "1234567"])
                codes = [f"{int(start[0]) + j}{start[1]}" for j in range(3)]
            else:
                c = "Wd" if white_dragons and rng.random() < white_dragons else str(rng.choice(suits + honours))
                codes = [c] * (4 if "kong" in kind else 3)
            groups.append((str(kind), codes, kind in ("chow", "pung", "kong") and rng.random() < 0.6))
        groups.append(("concealed", [str(rng.choice(suits))] * 2, False))
        if rng.random() < 0.5:
            groups.append(("bonus", [f"{rng.choice(['F', 'S'])}{int(rng.integers(1, 5))}"
                                     for _ in range(int(rng.integers(1, 4)))], False))
        hand = render_hand(groups, seed=seed * 100003 + i, tile_height=int(rng.integers(50, 110)))
        img = hand.image
        H, W = img.shape[:2]
        ch, cw = int(H * rng.uniform(1.5, 4)), int(W * rng.uniform(1.05, 1.4))
        canvas = table_background(rng, ch, cw)
        y, x = int(rng.integers(0, ch - H + 1)), int(rng.integers(0, cw - W + 1))
        canvas[y:y + H, x:x + W] = img
        boxes = np.float32([t.box for t in hand.tiles]) + np.float32([x, y, x, y])
        s = min(1.0, 640 / max(ch, cw))
        if s < 1:
            canvas = cv2.resize(canvas, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            boxes = boxes * s
        out.append((canvas, boxes))
    return out


class Views(torch.utils.data.Dataset):
    def __init__(self, items, seed: int, cast: float = 0.0, turn: float = 10.0):
        self.items, self.seed, self.epoch, self.cast, self.turn = items, seed, 0, cast, turn

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int):
        rng = np.random.default_rng((self.seed, self.epoch, i))
        image, boxes, trusted = self.items[i]
        img, boxes = random_view(image, boxes, rng, cast=self.cast, turn=self.turn)
        heat, size, off, mask = targets(boxes, SIDE, SIDE)
        x = (img.astype(np.float32) / 255.0 - np.float32(MEAN)) / np.float32(STD)
        return (torch.from_numpy(np.ascontiguousarray(x.transpose(2, 0, 1))), torch.from_numpy(heat),
                torch.from_numpy(size), torch.from_numpy(off), torch.from_numpy(mask * float(trusted)))


def loss_fn(pred, heat, size, off, mask):
    ph, ps, po = pred
    ph = ph.clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(ph) * (1 - ph) ** 2 * pos
    neg_loss = torch.log(1 - ph) * ph ** 2 * (1 - heat) ** 4 * neg
    n = pos.sum().clamp(min=1)
    focal = -(pos_loss.sum() + neg_loss.sum()) / n
    m = mask.expand_as(ps)  # zero where box sizes are not trusted (see sizes_trusted)
    n_sized = mask.sum().clamp(min=1)
    size_l = (F.l1_loss(ps * m, size * m, reduction="sum")) / n_sized
    off_l = (F.l1_loss(po * m, off * m, reduction="sum")) / n_sized
    return focal + size_l + off_l, (focal.item(), size_l.item(), off_l.item())


# ---------------------------------------------------------------- evaluation

def match(pred: np.ndarray, truth: np.ndarray, thr: float = 0.5) -> int:
    """Greedy one-to-one matches at IoU >= thr (pred sorted best first)."""
    if len(pred) == 0 or len(truth) == 0:
        return 0
    used = np.zeros(len(truth), bool)
    hits = 0
    for p in pred:
        ix = np.clip(np.minimum(p[2], truth[:, 2]) - np.maximum(p[0], truth[:, 0]), 0, None)
        iy = np.clip(np.minimum(p[3], truth[:, 3]) - np.maximum(p[1], truth[:, 1]), 0, None)
        inter = ix * iy
        union = (p[2] - p[0]) * (p[3] - p[1]) + (truth[:, 2] - truth[:, 0]) * (truth[:, 3] - truth[:, 1]) - inter
        iou = np.where(used, 0, inter / np.maximum(union, 1e-6))
        j = int(np.argmax(iou))
        if iou[j] >= thr:
            used[j] = True
            hits += 1
    return hits


THRESHOLDS = (0.1, 0.15, 0.2, 0.3, 0.4)  # heat thresholds tried on the held-out photos each epoch


@torch.no_grad()
def evaluate(model: DetNet, items, side: int = SIDE, thresholds=THRESHOLDS) -> dict:
    from mjcam.vision.locate import letterbox_photo, suppress

    model.eval()
    tot = {t: [0, 0, 0] for t in thresholds}  # hits, predictions, truths
    for img, truth, *_ in items:
        x, s = letterbox_photo(img, side)
        t = (x.astype(np.float32) / 255.0 - np.float32(MEAN)) / np.float32(STD)
        ph, ps, po = model(torch.from_numpy(np.ascontiguousarray(t.transpose(2, 0, 1)))[None])
        for thr in thresholds:
            boxes, scores = decode(ph[0, 0].numpy(), ps[0].numpy(), po[0].numpy(), STRIDE, threshold=thr)
            keep = suppress(boxes, scores, 0.45)
            boxes = boxes[keep] / s
            tot[thr][0] += match(boxes, truth)
            tot[thr][1] += len(boxes)
            tot[thr][2] += len(truth)
    model.train()
    return {t: {"recall": h / max(1, n), "precision": h / max(1, p)} for t, (h, p, n) in tot.items()}


# ---------------------------------------------------------------- training

def export(model: DetNet, path: str, threshold: float, side: int = SIDE) -> None:
    meta = {"kind": "tile-detector", "stride": STRIDE, "input_side": side, "mean": list(MEAN), "std": list(STD),
            "threshold": threshold}
    export_with_metadata(model, torch.zeros(1, 3, side, side), path, "image", ["heat", "size", "offset"],
                         {"image": {2: "h", 3: "w"}, "heat": {2: "gh", 3: "gw"}, "size": {2: "gh", 3: "gw"},
                          "offset": {2: "gh", 3: "gw"}}, {k: json.dumps(v) for k, v in meta.items()})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-det")
    ap.add_argument("--out", default="models/tile_detector.onnx")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--synthetic", type=int, default=400, help="synthetic hands added to the training photos")
    ap.add_argument("--white-dragons", type=float, default=0.0, metavar="SHARE",
                    help="share of the synthetic pungs and kongs made of white dragons (a bare one is a blank "
                         "ivory face, easily passed over as background)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", metavar="STATE",
                    help="start from these weights (a .best state dict, a resumable .pt checkpoint or an exported "
                         ".onnx detector such as the shipped one): a fine-tune")
    ap.add_argument("--turn", type=float, default=10.0, metavar="DEG",
                    help="half the training views turned by up to this many degrees either way")
    ap.add_argument("--cast", type=float, default=0.0, metavar="SHARE",
                    help="that share of the training views lit with a colour cast left uncorrected, warm to cool "
                         "(datasets.augment.cast_light)")
    ap.add_argument("--threshold", type=float, metavar="T",
                    help="export at this heat threshold (default: the one the held-out photos choose each epoch)")
    ap.add_argument("--oversample", metavar="CODES:K", help="show the training photos holding any of these "
                    "tiles K times an epoch, e.g. 'Wd,2s:3' (tiles the detector misses most)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.work, exist_ok=True)

    recs = read_yolo(os.path.join(args.data, "roboflow-hk-chinese"), "train")
    held = held_out_sources(recs, args.holdout, args.seed)
    train_recs = [r for r in recs if r.source not in held]
    if args.oversample:
        codes, k = args.oversample.rsplit(":", 1)
        wanted = set(codes.split(","))
        train_recs += [r for r in train_recs if any(b.code in wanted for b in r.boxes)] * (int(k) - 1)
    train_items = load_photos(train_recs)
    # epochs and the threshold are chosen on held-out photos whose boxes are as a real photo's
    hold_items = [it for it in load_photos([r for r in recs if r.source in held]) if it[2]]
    syn_path = os.path.join(args.work,
                            f"synthetic-{args.synthetic}-{args.seed}-v{SYNTHETIC_VERSION}-wd{args.white_dragons}.npz")
    if os.path.exists(syn_path):
        d = np.load(syn_path, allow_pickle=True)
        syn = [(i, b, True) for i, b in zip(d["images"], d["boxes"])]
    else:
        t0 = time.time()
        syn = synthetic_hands(args.synthetic, args.seed, args.white_dragons)
        np.savez(syn_path, images=np.array([s[0] for s in syn], dtype=object),
                 boxes=np.array([s[1] for s in syn], dtype=object))
        syn = [(i, b, True) for i, b in syn]
        print(f"rendered {len(syn)} synthetic hands in {time.time() - t0:.0f} s", flush=True)
    items = train_items + syn
    print(f"train: {len(train_items)} photos ({sum(t for *_, t in train_items)} with trusted sizes) + {len(syn)} "
          f"synthetic; held out: {len(hold_items)} photos of {len(held)} sources", flush=True)

    data = Views(items, args.seed, cast=args.cast, turn=args.turn)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=1,
                                         drop_last=True, persistent_workers=False)
    model = DetNet()
    if args.init:
        if args.init.endswith(".onnx"):  # the BatchNorms set from a batch of views
            calibration = torch.stack([data[i][0] for i in range(0, len(data), max(1, len(data) // 64))])
            model.load_state_dict(weights_from_onnx(args.init, model, calibration))
        else:
            model.load_state_dict(load_weights(args.init))
        print(f"fine-tuning from {args.init}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * len(loader)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    ckpt = os.path.join(args.work, f"detector-{args.seed}.pt")
    start, best = 0, (-1.0, 0.3)
    if os.path.exists(ckpt):
        st = torch.load(ckpt, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start, best = st["epoch"], tuple(st["best"])
        print(f"resumed at epoch {start}", flush=True)
    thresholds = THRESHOLDS if args.threshold is None else tuple(sorted({*THRESHOLDS, args.threshold}))
    for epoch in range(start, args.epochs):
        data.epoch = epoch
        t0, tot, parts = time.time(), 0.0, np.zeros(3)
        for x, heat, size, off, mask in loader:
            loss, p = loss_fn(model(x), heat, size, off, mask)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item()
            parts += p
        ev = evaluate(model, hold_items, thresholds=thresholds)
        # the threshold and epoch are chosen on held-out train photos: F1 weighted towards recall
        thr, r = max(((t, v) for t, v in ev.items() if args.threshold is None or t == args.threshold),
                     key=lambda kv: 2 * kv[1]["recall"] + kv[1]["precision"])
        score = 2 * r["recall"] + r["precision"]
        line = " ".join(f"t{t}:R{v['recall']:.3f}/P{v['precision']:.3f}" for t, v in ev.items())
        print(f"epoch {epoch + 1}/{args.epochs} loss {tot / len(loader):.3f} ({', '.join(f'{v / len(loader):.3f}' for v in parts)}) "
              f"{line} {time.time() - t0:.0f} s", flush=True)
        if score > best[0]:
            best = (score, thr)
            torch.save(model.state_dict(), ckpt + ".best")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch + 1, "best": best}, ckpt)
    model.load_state_dict(torch.load(ckpt + ".best"))
    export(model, args.out, threshold=float(best[1]))
    print(f"exported {args.out} (held-out score {best[0]:.3f}, threshold {best[1]})", flush=True)


if __name__ == "__main__":
    main()
