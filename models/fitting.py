"""What the trainers share: cached crop sets, packs of them to carry a run elsewhere, held-out
inputs, the fit loop with resumable checkpoints (on the CPU or a GPU), and the ONNX export with
metadata (torch, the ``train`` extra)."""

from __future__ import annotations

import os
import time

import cv2
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

from datasets.crops import CropSet, load_oriented
from mjcam.vision.preprocess import prepare

from .onnx_io import export_with_metadata


class Numbered(torch.utils.data.Sampler):
    """A sampler's indices, each with its place in the epoch: ``(index, draw)``. A dataset that seeds
    a view's random changes with the draw too (:func:`view_rng`) makes an item drawn twice in an
    epoch into two views, not the same view twice: drawn with replacement, an epoch several times
    the size of the data would otherwise show each view several times over."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        return ((int(i), k) for k, i in enumerate(self.sampler))

    def __len__(self) -> int:
        return len(self.sampler)


def view_rng(seed: int, epoch: int, key) -> tuple[np.random.Generator, int]:
    """The random source of one training view and the item it shows: ``key`` is an item's index,
    or ``(index, draw)`` as :class:`Numbered` gives it."""
    if isinstance(key, tuple):
        i, k = key
        return np.random.default_rng((seed, epoch, i, k)), i
    return np.random.default_rng((seed, epoch, key)), key


def cached(path: str, make) -> CropSet:
    """The crop set saved at ``path``, or ``make()``'s, saved there for the next run."""
    if os.path.exists(path):
        return CropSet.load(path)
    crops = make()
    crops.save(path)
    return crops


PACK_QUALITY = (60, 90)  # WebP quality of packed training crops (their views are JPEG-compressed anyway), tuning tiles


def _encoded(images: np.ndarray, quality: int) -> tuple[np.ndarray, np.ndarray]:
    bufs = [cv2.imencode(".webp", cv2.cvtColor(im, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_WEBP_QUALITY, quality])[1].ravel()
            for im in images]
    return np.concatenate(bufs), np.cumsum([0] + [len(b) for b in bufs])


def _decoded(buf: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.stack([cv2.cvtColor(cv2.imdecode(buf[a:b], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
                     for a, b in zip(offsets[:-1], offsets[1:])])


def write_pack(path: str, crops: CropSet, xs: np.ndarray, ys: np.ndarray) -> None:
    """Training crops and tuning inputs in one file of a few tens of megabytes (WebP), to carry a run
    to a machine that does not hold the photos; written whole or not at all."""
    buf, offsets = _encoded(crops.images, PACK_QUALITY[0])
    tbuf, toffsets = _encoded(xs, PACK_QUALITY[1])
    part = f"{path}.part.npz"
    np.savez_compressed(part, buf=buf, offsets=offsets, labels=crops.labels, sizes=crops.sizes,
                        groups=np.array(crops.groups), tbuf=tbuf, toffsets=toffsets, ys=ys)
    os.replace(part, path)


def read_pack(path: str) -> tuple[CropSet, np.ndarray, np.ndarray]:
    """The training crops and tuning inputs :func:`write_pack` saved at ``path``."""
    d = np.load(path)
    crops = CropSet(_decoded(d["buf"], d["offsets"]), d["labels"], d["sizes"], [str(g) for g in d["groups"]])
    return crops, _decoded(d["tbuf"], d["toffsets"]), d["ys"]


def holdout_batches(recs, limit_per_source: int | None = 1, mirrored: frozenset[str] = frozenset(),
                    codes=None, size: int = 96):
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


def export_onnx(model: nn.Module, path: str, meta: dict, size: int) -> None:
    export_with_metadata(model, torch.zeros(1, 3, size, size), path, "input", ["logits"],
                         {"input": {0: "batch"}, "logits": {0: "batch"}}, meta)


def step(model: nn.Module, loss_fn, opt, x: torch.Tensor, y: torch.Tensor, device: torch.device) -> torch.Tensor:
    """One training step on a batch (the network in bfloat16 on a GPU, the loss in float32)."""
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
        logits = model(x)
    loss = loss_fn(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def views_per_second(model: nn.Module, loader: DataLoader, train_step, seconds: float = 15.0) -> float:
    """Training views a second on this machine (views made, the network trained on them):
    ``train_step(opt, batch)`` trains ``model`` on one batch of ``loader`` (its first tensor the
    views) with the optimiser given. The weights are as they were when it returns."""
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    n, t0 = 0, None
    model.train()
    for batch in loader:
        train_step(opt, batch)
        if t0 is None:  # after the first batch: the workers have started
            t0 = time.time()
        else:
            n += len(batch[0])
            if time.time() - t0 > seconds:
                break
    model.load_state_dict(initial)
    return n / max(1e-6, time.time() - (t0 or time.time()))


def fit(model: nn.Module, ds, loader: DataLoader, lr: float, epochs: int, ckpt: str, run: dict,
        score, device: torch.device = torch.device("cpu")) -> float:
    """Train ``model`` on ``loader`` (AdamW, one-cycle to ``lr``, label smoothing 0.05) on
    ``device``, resuming from the checkpoint ``ckpt`` if it holds a run with the same ``run``
    settings. After each epoch ``score(model)`` is taken on held-out data; the best epoch's weights
    are kept in ``ckpt + ".best"`` and are the model's at the end. Returns the best score."""
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * len(loader), pct_start=0.15)
    start, best = 0, -1.0
    if os.path.exists(ckpt):
        st = torch.load(ckpt, map_location=device, weights_only=False)
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
            loss = step(model, loss_fn, opt, x, y, device)
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
    model.load_state_dict(torch.load(ckpt + ".best", map_location=device))
    return best
