"""A 12 MP photo from the file to the proposed hand, stage by stage, beside a plain full decode of
the same file and the peer recogniser, all in one process.

    python -m benchmarks.twelve_mp [PHOTO ...] [--data ../shared/data] [--rounds 5] [--no-peer]
        [--compare NAME=VALUE ...] [--memory] [--grain SIGMA]

Photos: those named, else the 21 timing photos of ``recognize_eval`` (the first seven of each
held-out part, grown to 12 MP as it grows them, made in a temporary folder). Grown from small
photos, they are smoother than a phone's and their JPEGs a third of the size (1–2 MB against a
phone's 3–6 MB), so they decode quicker than a phone's photo of the same size would; with
``--grain SIGMA`` each is saved again with a camera sensor's grain, noise of SIGMA grey levels
(fixed seed), at the same quality, and the files' mean size is printed.

Each round goes through every photo; for each photo the systems take turns, which goes first
changing from photo to photo and round to round:

- *decode*: ``PIL.Image.open(path).load()``, the whole picture at full size, as stored;
- *mjcam*: ``Recognizer()(path)``, models loaded before the first round; its stages' seconds
  (``Recognition.elapse``), the load stage split into the decoding of the file (``load_photo``)
  and the rest (brightening, the stretch check, any shrink); the second look's decoding on the
  photo's own pixels, where one is taken, is part of *find*;
- with ``--compare NAME=VALUE`` (a :class:`vision.stages.RecognizerConfig` field, repeatable), a
  second recogniser with those settings, in turn with the first, and on how many photos the two
  give the same hand and the same tiles' codes in the same order;
- *peer* (``pip install '.[bench]'``): the PyPI ``mahjong-detector``, file to detections, as
  ``recognize_eval`` runs it.

A photo's time for a system is its median over the rounds; printed are the medians over the
photos, and the median of the per-photo ratios. The machine's other work shows as spread between
rounds, not as a bias against one system. With ``--memory``, the peak resident memory of
``mjcam recognize`` on the first photo, in a process of its own (models loaded included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timing_photos(data: str, folder: str, each: int = 7) -> list[str]:
    """The first ``each`` photos of each held-out part grown to 12 MP in ``folder``, as
    ``recognize_eval``'s timing grows them."""
    from benchmarks.recognize_eval import photo_parts, upscaled

    parts = photo_parts("all-held-out", data, folder)
    timed = [r.path for p in parts for r in p.records[:each]]
    boxed = {r.path for p in parts if p.letterboxed for r in p.records}
    return upscaled(timed, folder, boxed)


def grained(photos: list[str], folder: str, sigma: float) -> list[str]:
    """The photos saved again in ``folder`` with noise of ``sigma`` grey levels added (a sensor's
    grain; seeded, so every run makes the same files), JPEG quality 92 as they were grown."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    out = []
    for k, p in enumerate(photos):
        with Image.open(p) as im:
            a = np.asarray(im.convert("RGB"), np.float32)
        a += rng.normal(0.0, sigma, a.shape).astype(np.float32)
        q = os.path.join(folder, f"grain-{k:02d}.jpg")
        Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(q, quality=92)
        out.append(q)
    return out


def _setting(text: str) -> tuple[str, object]:
    from dataclasses import fields

    from mjcam.vision.stages import RecognizerConfig

    name, eq, value = text.partition("=")
    kinds = {f.name: type(getattr(RecognizerConfig(), f.name)) for f in fields(RecognizerConfig)}
    if not eq or name not in kinds:
        raise SystemExit(f"--compare takes NAME=VALUE, NAME one of: {', '.join(kinds)}")
    kind = kinds[name]
    try:
        return name, (value.lower() in ("1", "true", "yes") if kind is bool else kind(value))
    except ValueError:
        raise SystemExit(f"--compare {name} takes a {kind.__name__}, not {value!r}") from None


def peak_mb(photo: str) -> int:
    """Peak resident memory (MB) of ``mjcam recognize photo --json`` in a process of its own."""
    code = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, r.returncode)")
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "mjcam", "recognize", photo, "--json"],
                         cwd=ROOT, capture_output=True, text=True).stdout.split()
    if len(out) != 2 or out[1] != "0":
        raise SystemExit(f"mjcam recognize failed on {photo}")
    return int(out[0])


class _DecodeTimer:
    """Wraps ``vision.stages.load_photo`` so that the seconds spent decoding the file are known."""

    def __init__(self):
        import mjcam.vision.stages as stages

        self.stages, self.inner, self.seconds = stages, stages.load_photo, 0.0
        stages.load_photo = self

    def __call__(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t0

    def close(self):
        self.stages.load_photo = self.inner


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("photos", nargs="*", help="photos (default: the 21 timing photos grown to 12 MP)")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-peer", action="store_true", help="leave the peer recogniser out")
    ap.add_argument("--compare", action="append", default=[], metavar="NAME=VALUE",
                    help="a second recogniser with this setting, side by side (repeatable)")
    ap.add_argument("--memory", action="store_true", help="peak memory of mjcam recognize on the first photo")
    ap.add_argument("--grain", type=float, default=0.0, metavar="SIGMA",
                    help="save the photos again with a sensor's grain of SIGMA grey levels (6 gives files of about "
                         "3 MB, a phone photo's size)")
    args = ap.parse_args(argv)
    from PIL import Image

    from mjcam.vision.pipeline import Recognizer

    peer = None
    if not args.no_peer:
        try:
            from mahjong_detector.predict import predict
            from mahjong_detector.preprocess import preprocess_image

            def peer(path):
                with Image.open(path) as im:
                    img, pad = preprocess_image(im)
                    return predict(img, pad)
        except ImportError:
            print("the peer is not installed (pip install '.[bench]'): left out")

    def decode(path):
        with Image.open(path) as im:
            im.load()

    with tempfile.TemporaryDirectory() as tmp:
        photos = args.photos or timing_photos(args.data, tmp)
        for p in photos:
            if not os.path.isfile(p):
                raise SystemExit(f"{p}: no such file")
        if args.grain > 0:
            photos = grained(photos, tmp, args.grain)
            size = statistics.mean(os.path.getsize(p) for p in photos) / 2 ** 20
            print(f"grain of {args.grain:g} grey levels: the files {size:.1f} MB on average")
        recs = {"mjcam": Recognizer()}
        if args.compare:
            settings = dict(map(_setting, args.compare))
            recs["mjcam " + ",".join(f"{k}={v}" for k, v in settings.items())] = Recognizer(**settings)
        systems = {"decode": decode, **{name: r for name, r in recs.items()}}
        if peer:
            systems["peer"] = peer
        for f in systems.values():  # warm: models loaded, first-call costs paid
            f(photos[0])
        timer = _DecodeTimer()
        times = {name: [[] for _ in photos] for name in systems}
        stages: dict[str, list[list[float]]] = {}
        hands: dict[str, list] = {name: [None] * len(photos) for name in recs}
        names = list(systems)
        try:
            for k in range(max(1, args.rounds)):
                for i, p in enumerate(photos):
                    shift = (i + k) % len(names)
                    for name in names[shift:] + names[:shift]:
                        timer.seconds = 0.0
                        t0 = time.perf_counter()
                        out = systems[name](p)
                        times[name][i].append(time.perf_counter() - t0)
                        if name in recs:
                            el = dict(out.elapse)
                            el["load: decode"] = timer.seconds
                            el["load: the rest"] = el.pop("load") - timer.seconds
                            for stage, s in el.items():
                                stages.setdefault(f"{name}|{stage}", [[] for _ in photos])[i].append(s)
                            hands[name][i] = (out.hand, [t.code for t in out.tiles])
        finally:
            timer.close()
        med = {name: [statistics.median(t) for t in ts] for name, ts in times.items()}
        print(f"{len(photos)} photos, {args.rounds} rounds, warm, one process; a photo's time is its median over "
              "the rounds, then the median over the photos (ms)")
        for name in names:
            print(f"  {name:34s} {1000 * statistics.median(med[name]):7.1f}")
        for name in recs:
            print(f"  {name} by stage:")
            for key, ts in stages.items():
                if key.startswith(name + "|"):
                    print(f"    {key.split('|', 1)[1]:32s} {1000 * statistics.median([statistics.median(t) for t in ts]):7.1f}")
        for name in recs:
            for other in ["decode"] + (["peer"] if peer else []):
                r = statistics.median([a / b for a, b in zip(med[name], med[other])])
                print(f"  {name} / {other}: {r:.2f}x (median of the photos' ratios)")
        if len(recs) == 2:
            a, b = recs
            same = sum(x == y for x, y in zip(hands[a], hands[b]))
            print(f"  {a} against {b}: {1000 * statistics.median([x - y for x, y in zip(med[b], med[a])]):+.1f} ms "
                  f"a photo (median of the photos' differences); the same hand and tile codes on {same} of {len(photos)}")
        if args.memory:
            print(f"  peak memory of mjcam recognize on {os.path.basename(photos[0])}: {peak_mb(photos[0])} MB")


if __name__ == "__main__":
    main()
