"""Photo-to-hand evaluation: mjcam and the peer (PyPI ``mahjong-detector``) on the same photos.

    pip install '.[bench]'
    python -m benchmarks.recognize_eval --data ../shared/data [--limit N] [--timing 20] [--rounds 3]
        [--photos valid|rethink-test|rethink-unseen|all-held-out|held-out|unseen-set]
        [--detector FILE] [--refiner FILE|none] [--baseline-detector FILE] [--frame K] [--strips]
        [--condition NAME] [--mended]

Photos (``--photos``), each read at its own size; none of them trained or tuned on by mjcam's models:

- ``valid`` (the default): the HK photos of the Roboflow HK set's *valid* split (``IMG_27*``, a
  Japanese set, and ``Screenshot*`` left out). Labels as published; with ``--mended`` the 18
  found wrong by eye (``datasets/roboflow_valid_mends.csv``) set to the tiles the photos show;
- ``rethink-test``: the photos of the rethink-bonus set whose sources ``datasets.splits`` holds
  out for the figures (``split(data).rethink_test``: 15 % of its sources, every copy of a source
  with it);
- ``rethink-unseen``: the rethink-bonus photos of the tile set held out whole (``home-mj``,
  ``split(data).unseen_set``: a set of tiles no model has seen);
- ``all-held-out``: the three, the figures printed for each part and then over all of them;
- ``held-out``: the HK training photos held out of every model's training (where settings are
  chosen, not figures); ``unseen-set``: 60 hands of a scanned tile set, drawn by the renderer.

The rethink photos are 640x640 copies with the photo shrunk between black bars; they are read so,
and for the 12 MP timing their bars are cut off and the photo grown to 12 MP at its own shape.

Systems, side by side, each in a process of its own: mjcam (with ``--detector FILE``, with that
ONNX tile detector in place of the shipped one, through ``MJCAM_DETECTOR``: a candidate judged
before it ships; with ``--refiner FILE`` or ``--refiner none``, that box refiner or none, through
``MJCAM_REFINER``); with ``--baseline-detector FILE``, mjcam again with that detector in a column of
its own (and the differences printed under the table); and the peer. ``--json FILE`` writes each
column's figures (with all-held-out, each part's under ``parts``).

Printed per system:
- detection recall and precision at IoU 0.5. A detection that matches no labelled tile and
  overlaps none (IoU < 0.1) may be one of the unlabelled background tiles some photos show: those
  are counted apart, and precision is printed both counting them as wrong (strict) and not;
- end-to-end tile accuracy: labelled tiles found *and* read right, over all labelled tiles;
- a tile labelled twice (two labelled boxes overlapping at IoU 0.6 or more: 6 tiles of the valid
  photos, one of them with two different codes) counts once, either code right; the figures with
  the labels as published are printed below the table;
- flowers and seasons: the same over the labelled bonus tiles (the peer has no such classes);
  rethink-bonus boxes its flowers and seasons round part of the tile (its character, the upper or
  the left half, or only the corner), so a found box matches one of those labels when it holds the
  label's centre and most of it, is at most six times its size and holds no other label's centre
  (:func:`overlap`);
- single-row hands read exactly: photos whose labelled tiles form one row (as
  ``vision.group.reading_order`` finds rows, following their slant), read as exactly
  the same codes in the same order — every tile found, and again with the tiles the recogniser
  itself set apart as strays (unlabelled tiles behind the hand, a wall) left out: the hand it
  proposes;
- the accuracy figures again without the photos Roboflow's square resize stretched out of all
  shape (``LabelledImage.stretched``: 18 of the valid photos, strips of a hand drawn three to ten
  times too wide or tall — no phone photo looks so);
- with ``--frame K``: the same on each photo set in the middle of a plain table K times as wide and
  tall (the hand smaller in the frame, as in a photo of the whole table; the labels moved with it);
- with ``--strips``: the same on stretched photos made from these: each row and each column of
  tiles cut out as a band and stretched to the photo's size, as Roboflow's square resize
  stretched valid's strips (bands stretched 3 times or more);
- with ``--condition NAME``: the same on each photo as a phone might have taken it in worse
  conditions (:data:`CONDITIONS`: a warm or cool colour cast, dim light, blur, heavy JPEG, noise,
  a glare spot, the photo turned by some degrees, seen in perspective from further down the
  table), the labels moved with it;
- time per photo (each system in its own process, models loaded once, loading the file
  included) at the photos' own size (640x640) and on 12 MP upscaled copies of the first
  ``--timing`` photos (with all-held-out, a third of them from each part), and each process's peak
  memory; a part's time is its photos' own times and its share of loading the models. The 12 MP
  timing runs ``--rounds`` times, the systems taking turns (one after the other, which goes first
  changing round by round), and each system's quickest round counts: a machine that slows down or
  speeds up during the run then favours neither.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from datasets.readers import PART_LABELLED_SET, overlap, part_labelled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PEER_CODES = {"chun": "Rd", "haku": "Wd", "hatsu": "Gd", "tou": "E", "nan": "S", "sha": "W", "pe": "N"}


# ---------------------------------------------------------------- workers (one process per system)

def run_mjcam(paths: list[str], times: list[float] | None = None) -> list[dict]:
    """mjcam's readings of the photos, with the detector ``MJCAM_DETECTOR`` names where set; the
    seconds each photo took (loading the file included) are appended to ``times``."""
    from mjcam.vision.pipeline import Recognizer

    rec = Recognizer()
    out = []
    for p in paths:
        t0 = time.perf_counter()
        r = rec(p)
        if times is not None:
            times.append(time.perf_counter() - t0)
        stray = {i for g in r.groups if g["kind"] == "stray" for i in g["tiles"]}
        out.append({"boxes": [t.box for t in r.tiles], "codes": [t.code for t in r.tiles],
                    "scores": [t.detection * t.confidence for t in r.tiles],
                    "stray": [i in stray for i in range(len(r.tiles))]})
    return out


def run_peer(paths: list[str], times: list[float] | None = None) -> list[dict]:
    from PIL import Image
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image

    out = []
    for p in paths:
        t0 = time.perf_counter()
        with Image.open(p) as im:
            img, pad = preprocess_image(im)
            dets = predict(img, pad)
        if times is not None:
            times.append(time.perf_counter() - t0)
        dets.sort(key=lambda d: d.x1)
        out.append({"boxes": [(d.x1, d.y1, d.x2, d.y2) for d in dets],
                    "codes": [PEER_CODES.get(CLASS_NAMES[d.class_id], CLASS_NAMES[d.class_id]) for d in dets],
                    "scores": [d.confidence for d in dets]})
    return out


def worker(system: str, listfile: str) -> None:
    paths = open(listfile).read().split("\n")
    times: list[float] = []
    t0 = time.perf_counter()
    preds = (run_mjcam if system == "mjcam" else run_peer)(paths, times)
    dt = time.perf_counter() - t0
    print(json.dumps({"preds": preds, "seconds": dt, "times": times, "peak_mb": peak_mb()}))


def peak_mb() -> float:
    """This process's peak resident memory in MB. Linux's ``VmHWM`` starts anew when the worker is
    exec'd; ``ru_maxrss`` (the fallback elsewhere) does not: a process forked and exec'd inherits
    its parent's peak, so each worker would report at least what the benchmark itself held then."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def launch(system: str, paths: list[str], detector: str | None = None, refiner: str | None = None) -> dict:
    """Run the worker of ``system`` (``mjcam`` or ``peer``) on ``paths`` in a process of its own;
    ``detector``: an ONNX tile detector mjcam uses in place of the shipped one (``MJCAM_DETECTOR``);
    ``refiner``: a box refiner file, or ``none`` (``MJCAM_REFINER``)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(paths))
    env = None  # the environment as it is
    if detector or refiner:
        env = dict(os.environ)
        if detector:
            env["MJCAM_DETECTOR"] = os.path.abspath(detector)
        if refiner:
            env["MJCAM_REFINER"] = refiner if refiner.lower() == "none" else os.path.abspath(refiner)
    try:
        res = subprocess.run([sys.executable, "-m", "benchmarks.recognize_eval", "--worker", system, fh.name],
                             capture_output=True, text=True, cwd=ROOT, env=env)
    finally:
        os.unlink(fh.name)
    if res.returncode:
        raise SystemExit(f"{system} worker failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def columns(detector: str | None = None, baseline_detector: str | None = None,
            refiner: str | None = None) -> list[tuple[str, str, str | None]]:
    """The systems side by side: ``(column, worker, detector)``. mjcam with ``detector`` (else
    ``MJCAM_DETECTOR`` where set, else the shipped one) and ``refiner`` (a box refiner file or
    ``none``, named in the column), mjcam again with ``baseline_detector`` where given, and the peer.

    >>> columns(baseline_detector="models/old.onnx")
    [('mjcam', 'mjcam', None), ('mjcam (detector old.onnx)', 'mjcam', 'models/old.onnx'), ('peer', 'peer', None)]
    >>> columns("new.onnx", refiner="none")[0]
    ('mjcam (detector new.onnx, refiner none)', 'mjcam', 'new.onnx')
    """
    named = [f"detector {os.path.basename(d)}" for d in [detector or os.environ.get("MJCAM_DETECTOR")] if d]
    named += [f"refiner {os.path.basename(r)}" for r in [refiner] if r]
    out = [(f"mjcam ({', '.join(named)})" if named else "mjcam", "mjcam", detector)]
    if baseline_detector:
        name = f"mjcam (detector {os.path.basename(baseline_detector)})"
        if name == out[0][0]:  # the same file name twice
            name = f"mjcam (baseline detector {os.path.basename(baseline_detector)})"
        out.append((name, "mjcam", baseline_detector))
    return out + [("peer", "peer", None)]


def column_refiner(k: int, system: str, refiner: str | None) -> str | None:
    """The box refiner the ``k``-th column's worker is handed: ``refiner`` (``--refiner``) for the
    first, mjcam as it stands; none for a baseline column (no refiner ships), whatever
    ``MJCAM_REFINER`` says; None (the environment as it is) otherwise.

    >>> column_refiner(0, "mjcam", "none"), column_refiner(1, "mjcam", "my.onnx"), column_refiner(2, "peer", None)
    ('none', 'none', None)
    """
    if system != "mjcam":
        return None
    return refiner if k == 0 else "none"


# ---------------------------------------------------------------- scoring the predictions

def _read_in_order(pr: dict, idx) -> list[str]:
    """The codes of the predicted tiles ``idx`` in reading order (rows top to bottom, left to right)."""
    from mjcam.vision.group import TileObs, reading_order

    idx = list(idx)
    rows = reading_order([TileObs(tuple(pr["boxes"][i]), pr["codes"][i]) for i in idx])
    return [pr["codes"][idx[k]] for r in rows for k in r]


RETHINK = PART_LABELLED_SET


def assess(records, preds, merge_duplicates: bool = True) -> dict:
    """The figures of one system. A tile labelled twice (``LabelledImage.tiles``) counts once, and
    where its two labels disagree either code is taken as right; ``merge_duplicates=False`` takes
    the labels as published. Flowers and seasons labelled by part of the tile match as
    :func:`overlap` says."""
    from datasets.crops import iou as _iou
    from mjcam.scoring.tiles import FLOWERS, SEASONS
    from mjcam.vision.group import TileObs, reading_order

    found = truths = dets = apart = right = bonus = bonus_right = 0
    rows_total = rows_exact = rows_exact_hand = 0
    for rec, pr in zip(records, preds):
        truth = rec.tiles() if merge_duplicates else [(b.box, (b.code,)) for b in rec.boxes]
        truths += len(truth)
        order = sorted(range(len(pr["boxes"])), key=lambda i: -pr["scores"][i])
        used = [False] * len(truth)
        dets += len(order)
        for i in order:
            box = pr["boxes"][i]
            ious = [0.0 if used[j] else overlap(box, t[0], part_labelled(rec.path, t[1][0]),
                                                [o[0] for k, o in enumerate(truth) if k != j])
                    for j, t in enumerate(truth)]
            j = max(range(len(truth)), key=lambda k: ious[k]) if truth else -1
            if j >= 0 and ious[j] >= 0.5:
                used[j] = True
                found += 1
                ok = pr["codes"][i] in truth[j][1]
                right += ok
                if truth[j][1][0] in FLOWERS + SEASONS:
                    bonus_right += ok
            elif all(_iou(box, t[0]) < 0.1 for t in truth):
                apart += 1
        bonus += sum(1 for _, c in truth if c[0] in FLOWERS + SEASONS)
        rows = reading_order([TileObs(t[0], t[1][0]) for t in truth])
        if len(rows) == 1 and len(truth) >= 5:
            rows_total += 1
            want = [truth[i][1] for i in rows[0]]

            def exact(got: list[str]) -> bool:
                return len(got) == len(want) and all(g in w for g, w in zip(got, want))

            rows_exact += exact(_read_in_order(pr, range(len(pr["boxes"]))))
            # the hand as proposed: tiles the recogniser itself set apart as strays (lying behind the
            # hand, unlabelled here) left out; a system without that notion is read whole
            stray = pr.get("stray") or [False] * len(pr["boxes"])
            rows_exact_hand += exact(_read_in_order(pr, [i for i in range(len(pr["boxes"])) if not stray[i]]))
    fp = dets - found
    return {"recall": found / max(1, truths), "precision_strict": found / max(1, dets),
            "precision": found / max(1, dets - apart), "background": apart, "false": fp - apart,
            "accuracy": right / max(1, truths), "read_right_of_found": right / max(1, found),
            "bonus": bonus_right / max(1, bonus), "bonus_n": bonus, "rows_exact": rows_exact / max(1, rows_total),
            "rows_exact_hand": rows_exact_hand / max(1, rows_total),
            "rows_n": rows_total, "truths": truths}


def _copy_path(folder: str, path: str) -> str:
    """Where a JPEG copy of the photo ``path`` goes in ``folder``: named after it, and after
    rethink-bonus where it comes from there, so that its labels of part of a tile are matched as
    such on the copy too (:func:`datasets.readers.part_labelled` reads the set from the name)."""
    name = os.path.basename(path).rsplit(".", 1)[0] + ".jpg"
    return os.path.join(folder, (RETHINK + "-" if RETHINK in path and RETHINK not in name else "") + name)


def _grown(path: str, folder: str, letterboxed: bool) -> tuple[str, tuple[float, float, float, float], tuple[int, int]]:
    """A 12 MP copy of the photo at ``path`` (see :func:`upscaled`) saved in ``folder``: its path,
    how a point moves onto it (``x0, y0, kx, ky``: ``((x - x0) * kx, (y - y0) * ky)``) and its size."""
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGB")
        x0 = y0 = 0
        if letterboxed:
            x0, y0, x1, y1 = _inside_bars(im)
            im = im.crop((x0, y0, x1, y1))
            k = (12e6 / (im.width * im.height)) ** 0.5
            w, h = round(im.width * k), round(im.height * k)
        else:
            w, h = 4000, 3000
        big = im.resize((w, h), Image.BICUBIC)
        q = _copy_path(folder, path)[:-4] + "-12mp.jpg"
        big.save(q, quality=92)
        return q, (x0, y0, w / im.width, h / im.height), (w, h)


def upscaled(paths: list[str], folder: str, letterboxed: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """12 MP copies of the photos, as a phone takes them: 4000x3000 (valid's 640x640 copies were
    stretched square from such photos); a photo in ``letterboxed`` (the rethink copies: the photo
    shrunk into 640x640 between black bars) has its bars cut off and is grown to 12 MP at its own
    shape."""
    return [_grown(p, folder, p in letterboxed)[0] for p in paths]


def grown(records, folder: str, letterboxed: bool) -> list:
    """The photos as :func:`upscaled` grows them to 12 MP (the timing photos), labels moved with them:
    the whole recogniser judged on photos of a phone's size."""
    from dataclasses import replace

    from datasets.readers import LabelledBox

    out = []
    for r in records:
        q, (x0, y0, kx, ky), (w, h) = _grown(r.path, folder, letterboxed)
        boxes = [LabelledBox(b.code, ((b.box[0] - x0) * kx, (b.box[1] - y0) * ky, (b.box[2] - x0) * kx,
                                      (b.box[3] - y0) * ky)) for b in r.boxes]
        out.append(replace(r, path=q, width=w, height=h, boxes=boxes))
    return out


def _inside_bars(im, dark: int = 16) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of a letterboxed picture inside its black bars: the rows and
    columns at the edges with no pixel brighter than ``dark`` left out."""
    import numpy as np

    a = np.asarray(im.convert("L"))
    rows, cols = np.flatnonzero(a.max(1) > dark), np.flatnonzero(a.max(0) > dark)
    if not len(rows):
        return 0, 0, im.width, im.height
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def framed(records, k: float, folder: str) -> list:
    """Each photo set in the middle of a plain table ``k`` times as wide and tall (the median colour
    of the photo's edges, with a little noise), its labels moved with it: the hand smaller in the
    frame, as in a photo of the whole table."""
    from dataclasses import replace

    import numpy as np
    from PIL import Image

    from datasets.readers import LabelledBox

    rng = np.random.default_rng(0)
    out = []
    for r in records:
        with Image.open(r.path) as im:
            a = np.asarray(im.convert("RGB"))
        h, w = a.shape[:2]
        edges = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
        H, W = round(h * k), round(w * k)
        table = np.clip(np.median(edges, 0) + rng.normal(0, 6, (H, W, 3)), 0, 255).astype(np.uint8)
        oy, ox = (H - h) // 2, (W - w) // 2
        table[oy:oy + h, ox:ox + w] = a
        q = _copy_path(folder, r.path)
        Image.fromarray(table).save(q, quality=92)
        boxes = [LabelledBox(b.code, (b.box[0] + ox, b.box[1] + oy, b.box[2] + ox, b.box[3] + oy)) for b in r.boxes]
        out.append(replace(r, path=q, width=W, height=H, boxes=boxes))
    return out


# photo conditions a phone photo at the table may bring (``--condition``)
CASTS = {"warm": (1.25, 0.95, 0.65), "cool": (0.7, 0.95, 1.25), "warmish": (1.12, 1.0, 0.82),
         "coolish": (0.85, 1.0, 1.12), "lamp": (1.18, 0.98, 0.74), "shade": (0.78, 0.97, 1.18)}
CONDITIONS = ("warm", "cool", "warmish", "coolish", "lamp", "shade", "dim", "blur", "jpeg", "noise", "glare", "turn8",
              "turn-15", "tilt15")  # and turnD, tiltD for any D


def condition_name(name: str) -> str:
    """``name`` if it is a condition (:data:`CONDITIONS`, or ``turnD`` / ``tiltD`` for a number of
    degrees D), else ValueError.

    >>> condition_name("turn-22"), condition_name("warm")
    ('turn-22', 'warm')
    """
    if name in CONDITIONS or re.fullmatch(r"(turn|tilt)-?\d+(\.\d+)?", name):
        return name
    m = re.fullmatch(r"keystone(\d+(\.\d+)?)", name)
    if m and float(m.group(1)) < 100:
        return name
    raise ValueError(f"unknown condition {name!r} (one of {', '.join(CONDITIONS)}, turnD / tiltD for D degrees, "
                     "or keystoneP for P % under 100)")


def conditioned(records, name: str, folder: str) -> list:
    """Each photo as a phone might have taken it in the condition ``name`` (:data:`CONDITIONS`):
    ``warm`` / ``cool`` — tungsten or shade light left uncorrected (red, green and blue scaled 1.25,
    0.95 and 0.65, or 0.7, 0.95 and 1.25); ``warmish`` / ``coolish`` — the same, milder (1.12, 1,
    0.82 or 0.85, 1, 1.12); ``lamp`` / ``shade`` — between the two (1.18, 0.98, 0.74 or 0.78,
    0.97, 1.18); ``dim`` — underexposed (gamma 1.8, then 0.6 times as bright, a little
    noise); ``blur`` — out of focus (Gaussian, sigma 1.6 px at the photo's size); ``jpeg`` —
    quality 12; ``noise`` — sensor noise (sigma 14); ``glare`` — a bright lamp spot; ``turnD`` —
    the photo turned D degrees (counter-clockwise), grown to hold it, the corners filled with the
    table's colour, each label the upright box around its turned box (fair only where the labels
    are tight: a Roboflow copy already turned is labelled with loose boxes, which turning again
    loosens further, so judge turns on photos that are not such copies); ``tiltD`` — the same
    within the photo's own frame, as a phone held at a slant takes it: the corners cut off (and
    filled so), the tiles the same size, a label whose turned box's centre leaves the frame
    dropped, the rest clipped to it; ``keystoneP`` — seen from further down the table, as a phone
    held in front of a seated player takes it: the photo's top edge drawn P % narrower than its
    bottom and the picture between in perspective (the far tiles smaller and flatter), within its
    own frame, the corners filled with the table's colour, each label the upright box around its
    box so drawn. Saved as JPEG of quality 95
    (12 for ``jpeg``); seeded: the same every run."""
    from dataclasses import replace

    import cv2
    import numpy as np

    condition_name(name)
    rng = np.random.default_rng(0)
    out = []
    for r in records:
        a = cv2.cvtColor(cv2.imread(r.path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB).astype(np.float32)
        h, w = a.shape[:2]
        boxes = list(r.boxes)
        if name in CASTS:
            a = a * np.array(CASTS[name])
        elif name == "dim":
            a = 255 * (a / 255) ** 1.8 * 0.6 + rng.normal(0, 3, a.shape)
        elif name == "blur":
            a = cv2.GaussianBlur(a, (0, 0), 1.6)
        elif name == "noise":
            a = a + rng.normal(0, 14, a.shape)
        elif name == "glare":
            yy, xx = np.mgrid[:h, :w]
            cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
            a = a + 150 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.18 * w) ** 2))[..., None]
        elif name.startswith(("turn", "tilt")):
            m = cv2.getRotationMatrix2D((w / 2, h / 2), float(name[4:]), 1.0)
            W, H = w, h  # tilt: the frame stays
            if name.startswith("turn"):  # the canvas grows to hold all of the photo
                c, s = abs(m[0, 0]), abs(m[0, 1])
                W, H = int(round(h * s + w * c)), int(round(h * c + w * s))
                m[0, 2] += (W - w) / 2
                m[1, 2] += (H - h) / 2
            a = cv2.warpAffine(a, m, (W, H), flags=cv2.INTER_LINEAR, borderValue=_edge_colour(a))
            boxes, w, h = _moved(boxes, np.vstack([m, [0.0, 0.0, 1.0]]), W, H), W, H
        elif name.startswith("keystone"):
            k = float(name[8:]) / 200  # each top corner moved in by half of it
            corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            m = cv2.getPerspectiveTransform(corners, np.float32([[k * w, 0], [(1 - k) * w, 0], [w, h], [0, h]]))
            a = cv2.warpPerspective(a, m, (w, h), flags=cv2.INTER_AREA, borderValue=_edge_colour(a))
            boxes = _moved(boxes, m, w, h)  # (the frame holds the whole picture drawn so: nothing leaves it)
        a = np.clip(a, 0, 255).astype(np.uint8)
        q = _copy_path(folder, r.path)[:-4] + f"-{name}.jpg"
        cv2.imwrite(q, cv2.cvtColor(a, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 12 if name == "jpeg" else 95])
        out.append(replace(r, path=q, width=w, height=h, boxes=boxes))
    return out


def _edge_colour(a) -> tuple[float, ...]:
    """The median colour of a picture's edges: the table's, to fill what a turn or tilt uncovers."""
    import numpy as np

    return tuple(float(v) for v in np.median(np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]]), 0))


def _moved(boxes, m, w: int, h: int) -> list:
    """Labels carried by the 3x3 map ``m`` into a ``w`` x ``h`` picture: each the upright box around
    its box so drawn, clipped to the picture; a label whose centre leaves it (a tile turned out of
    a tilted photo's frame) is dropped."""
    import cv2
    import numpy as np

    from datasets.readers import LabelledBox

    out = []
    for b in boxes:
        x0, y0, x1, y1 = b.box
        pts = cv2.perspectiveTransform(np.float64([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), m)[0]
        cx, cy = pts[:, 0].mean(), pts[:, 1].mean()
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        out.append(LabelledBox(b.code, (max(0.0, float(pts[:, 0].min())), max(0.0, float(pts[:, 1].min())),
                                        min(float(w), float(pts[:, 0].max())), min(float(h), float(pts[:, 1].max())))))
    return out


def strips(records, folder: str, least: float = 3.0) -> list:
    """Each row and each column of each photo's labelled tiles (``vision.group.reading_order``,
    across and down the photo; rows of four or more) cut out as a band (a margin of a third of
    the median tile's short side) and stretched to the photo's own size, as Roboflow's square
    resize stretched the strips of a hand in the valid split: stretched photos made from photos
    where nothing was chosen, so that the reading of stretched photos can be chosen somewhere
    else than on valid's 18. A band's labels are the tiles with at least half their box inside
    it, clipped to it; bands that would come out stretched less than ``least`` times are left out."""
    from dataclasses import replace

    from PIL import Image

    from datasets.readers import LabelledBox
    from mjcam.vision.group import TileObs, reading_order

    out = []
    for r in records:
        if not r.boxes:
            continue
        with Image.open(r.path) as im:
            photo = im.convert("RGB")
        rows = reading_order([TileObs(b.box, b.code) for b in r.boxes])
        # and the columns: rows that run down the photo (a photo turned a quarter; a grid's columns)
        columns = reading_order([TileObs((b.box[1], b.box[0], b.box[3], b.box[2]), b.code) for b in r.boxes])
        for k, row in enumerate(rows + columns):
            if len(row) < 4:
                continue
            mine = [r.boxes[i].box for i in row]
            short = sorted(min(b[2] - b[0], b[3] - b[1]) for b in mine)[len(mine) // 2]
            m = short / 3
            x0, y0 = max(0.0, min(b[0] for b in mine) - m), max(0.0, min(b[1] for b in mine) - m)
            x1, y1 = min(float(r.width), max(b[2] for b in mine) + m), min(float(r.height), max(b[3] for b in mine) + m)
            sx, sy = r.width / (x1 - x0), r.height / (y1 - y0)
            if max(sx / sy, sy / sx) < least:
                continue
            boxes = []
            for b in r.boxes:
                c = (max(b.box[0], x0), max(b.box[1], y0), min(b.box[2], x1), min(b.box[3], y1))
                area = (b.box[2] - b.box[0]) * (b.box[3] - b.box[1])
                if c[2] > c[0] and c[3] > c[1] and (c[2] - c[0]) * (c[3] - c[1]) >= area / 2:
                    boxes.append(LabelledBox(b.code, ((c[0] - x0) * sx, (c[1] - y0) * sy, (c[2] - x0) * sx,
                                                      (c[3] - y0) * sy)))
            q = _copy_path(folder, r.path)[:-4] + f"-row{k}.jpg"
            photo.crop((round(x0), round(y0), round(x1), round(y1))).resize((r.width, r.height), Image.BICUBIC).save(
                q, quality=92)
            out.append(replace(r, path=q, boxes=boxes))
    return out


def unseen_set_hands(folder: str, count: int = 60, seed: int = 0, sets: tuple[str, ...] = ("real",)) -> list:
    """Hands of a tile set none of mjcam's models trained on — xmahjongg's ``real``, a scan of a
    real Hong Kong set (:mod:`datasets.xmahjongg_tiles`) — laid out as a player shows a hand
    (``datasets.synthetic.render_hand``: melds apart, a claimed tile of each melded chow or pung
    sideways, a kong now and then, flowers and seasons at the end) in a phone photo's 4:3 frame,
    in perspective and in the renderer's light, blur, noise and JPEG: four sets and a pair, random
    tiles each time. Boxes are the tiles as drawn."""
    import numpy as np
    from PIL import Image

    from datasets.readers import LabelledBox, LabelledImage
    from datasets.synthetic import render_hand
    from datasets.xmahjongg_tiles import xmahjongg_tiles
    from mjcam.scoring.tiles import CODES, FLOWERS, N_PLAYABLE, SEASONS, SUITS

    art = xmahjongg_tiles()
    if not all(s in art for s in sets):
        raise SystemExit("xmahjongg's tile pictures are not installed (apt-get install xmahjongg)")
    rng = np.random.default_rng(seed)
    drawn = [c for c in CODES[:N_PLAYABLE] if c != "Wd"]  # the tiles of pungs and pairs: no white dragon
    out = []
    for k in range(count):
        groups = []
        for _ in range(4):
            melded = bool(rng.random() < 0.5)
            if rng.random() < 0.55:  # a chow
                suit, start = SUITS[int(rng.integers(3))], int(rng.integers(1, 8))
                groups.append(("chow", [f"{start + i}{suit}" for i in range(3)], melded))
            else:
                code = str(rng.choice(drawn))
                kind = "kong" if melded and rng.random() < 0.15 else "pung"
                groups.append((kind, [code] * (4 if kind == "kong" else 3), melded))
        groups.append(("concealed", [str(rng.choice(drawn))] * 2, False))
        groups.sort(key=lambda g: g[2])  # the concealed part first, the melds after it
        bonus = list(rng.choice(FLOWERS + SEASONS, int(rng.choice([0, 0, 1, 2])), replace=False))
        if bonus:
            groups.append(("bonus", [str(c) for c in bonus], True))
        name = sets[k % len(sets)]
        hand = render_hand(groups, seed=seed * 1000 + k, tile_height=int(rng.integers(60, 130)),
                           perspective=0.05, tiles=art[name], aspect=0.75)
        q = os.path.join(folder, f"{name}-hand{k:03d}.jpg")
        Image.fromarray(hand.image).save(q, quality=90)
        h, w = hand.image.shape[:2]
        out.append(LabelledImage(q, w, h, [LabelledBox(t.code, tuple(float(v) for v in t.box)) for t in hand.tiles]))
    return out


@dataclass
class Part:
    """A part of the photos a run reads: ``name`` in the tables, ``what`` in words, its records, and
    whether its photos are letterboxed (shrunk into a square between black bars)."""
    name: str
    what: str
    records: list
    letterboxed: bool = False


PHOTOS = ("valid", "rethink-test", "rethink-unseen", "all-held-out", "held-out", "tuning", "tuning-real", "unseen-set")


def photo_parts(photos: str, data: str, folder: str, seed: int = 0, mend: bool = False) -> list[Part]:
    """The photos ``--photos`` names, in parts (one, or three for ``all-held-out``): ``valid`` —
    the HK photos of roboflow-hk-chinese's valid split (``mend``: its labels found wrong by eye
    mended); ``rethink-test`` / ``rethink-unseen`` — the held-out sources and the held-out tile set
    of roboflow-rethink-bonus (``datasets.splits``); ``all-held-out`` — the three; ``held-out`` —
    the training photos held out of every model's training; ``tuning`` — the photos held out to
    choose the classifier's and the detector's epochs (``datasets.splits`` with its seed: HK's
    tuning tenth, every labelled copy, and rethink-bonus's tuning sources; the detector's epoch
    choice reads only those whose boxes are as a real photo's), where a new detector or setting is
    judged before it ships; ``tuning-real`` — those the detector's epoch choice reads (HK's copies
    Roboflow turned by odd angles left out: their labels are the upright hulls of turned boxes, and
    HK ``valid`` holds one such photo in 238); ``unseen-set`` —
    hands of a scanned tile set drawn by the renderer into ``folder`` (``seed``)."""
    from datasets.crops import load_rgb
    from datasets.readers import held_out_sources, mended, read_yolo, roboflow_subset, sizes_trusted
    from datasets.splits import split

    if photos not in PHOTOS:
        raise ValueError(f"unknown photos {photos!r} (one of {', '.join(PHOTOS)})")
    if photos == "unseen-set":
        return [Part("unseen set", "hands of a scanned tile set never trained on (xmahjongg 'real')",
                     unseen_set_hands(folder, seed=seed))]
    if photos == "held-out":  # the same held-out sources as models/train.py, detector.py and refiner.py (seed 1, a tenth)
        recs = read_yolo(os.path.join(data, "roboflow-hk-chinese"), "train")
        held = held_out_sources(recs, 0.1, 1)
        return [Part("held-out", "held-out training photos", [r for r in recs if r.source in held and r.boxes])]
    if photos in ("tuning", "tuning-real"):
        sp = split(data)
        hk = Part("HK tuning", "HK training photos held out to tune on", [r for r in sp.hk_tune if r.boxes])
        if photos == "tuning-real":  # HK's copies turned by odd angles left out: their labels are turned boxes' hulls
            hk = Part("HK tuning as taken", hk.what + ", as photographed (no turned copies)",
                      [r for r in hk.records if sizes_trusted(load_rgb(r.path))])  # read whole: its corners
        return [hk, Part("rethink tuning", "rethink-bonus sources held out to tune on",
                         [r for r in sp.rethink_tune if r.boxes], letterboxed=True)]
    parts = []
    if photos in ("valid", "all-held-out"):
        recs = [r for r in read_yolo(os.path.join(data, "roboflow-hk-chinese"), "valid") if roboflow_subset(r.path) == "hk"]
        parts.append(Part("HK valid", "HK photos of the valid split", mended(recs) if mend else recs))
    if photos != "valid":
        if not os.path.isdir(os.path.join(data, "roboflow-rethink-bonus")):
            raise SystemExit(f"no roboflow-rethink-bonus under {data}")
        sp = split(data)
        if photos in ("rethink-test", "all-held-out"):
            parts.append(Part("rethink test", "held-out rethink-bonus photos (sources never trained or tuned on)",
                              sp.rethink_test, letterboxed=True))
        if photos in ("rethink-unseen", "all-held-out"):
            parts.append(Part("rethink unseen set", "rethink-bonus photos of the tile set held out whole (home-mj)",
                              sp.unseen_set, letterboxed=True))
    return parts


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N photos (of each part, with all-held-out)")
    ap.add_argument("--timing", type=int, default=20,
                    help="photos for the 12 MP timing (0: none; with all-held-out, the first N/3 of each part)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="12 MP timing rounds, the systems taking turns; each system's quickest counts")
    ap.add_argument("--worker", nargs=2, metavar=("SYSTEM", "LIST"), help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    ap.add_argument("--photos", choices=PHOTOS, default="valid",
                    help="valid: the valid split's HK photos (the figures); rethink-test: the rethink-bonus photos "
                         "held out for the figures (sources never trained or tuned on); rethink-unseen: its tile set "
                         "held out whole; all-held-out: the three, figures per part and overall; held-out: the "
                         "training photos held out of every model's training (where settings are chosen); "
                         "tuning: the photos that choose the classifier's and detector's epochs (where a new "
                         "detector is judged); tuning-real: those of them photographed as they are (HK's copies "
                         "turned by odd angles left out: their labels are turned boxes' hulls); unseen-set: 60 "
                         "hands of a scanned real tile set no model trained on, laid out and photographed by the "
                         "renderer (apt-get install xmahjongg)")
    ap.add_argument("--detector", metavar="FILE",
                    help="an ONNX tile detector mjcam uses in place of the shipped one (MJCAM_DETECTOR), to judge "
                         "a candidate before it ships")
    ap.add_argument("--refiner", metavar="FILE|none",
                    help="the box refiner mjcam uses with --detector (MJCAM_REFINER): a file, or none to read the "
                         "detector's boxes as they come; the baseline column reads its detector's boxes as they come")
    ap.add_argument("--baseline-detector", metavar="FILE",
                    help="run mjcam a second time, with this ONNX tile detector, in a column of its own")
    ap.add_argument("--seed", type=int, default=0,
                    help="with --photos unseen-set: draw other hands (0, the figures' hands; another seed gives hands "
                         "no choice has been made on, to judge a change by)")
    ap.add_argument("--mended", action="store_true",
                    help="valid's labels found wrong by eye set to the tiles the photos show "
                         "(datasets/roboflow_valid_mends.csv): the figures with the labels mended")
    ap.add_argument("--frame", type=float, default=1.0, metavar="K",
                    help="set each photo in the middle of a plain table K times as wide and tall (the hand "
                         "smaller in the frame, as in a photo of the whole table)")
    ap.add_argument("--twelve", action="store_true",
                    help="each photo grown to 12 MP as the timing photos are (a letterboxed photo's bars cut off), "
                         "its labels moved with it: the figures on photos of a phone's size")
    ap.add_argument("--strips", action="store_true",
                    help="each row of tiles cut out as a band and stretched to the photo's size (bands stretched 3 "
                         "times or more): stretched photos made where nothing is chosen")
    ap.add_argument("--condition", type=condition_name, metavar="NAME", help="each photo as a phone might have taken it in worse "
                    "conditions: " + ", ".join(CONDITIONS) + ", or turnD / tiltD (turned D degrees; tilt keeps the frame), "
                    "or keystoneP (seen in perspective, the top edge P %% narrower)")
    args = ap.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    for det in (args.detector, args.baseline_detector):
        if det and not os.path.isfile(det):
            ap.error(f"no detector file {det}")
    if args.refiner and args.refiner.lower() != "none" and not os.path.isfile(args.refiner):
        ap.error(f"no box refiner file {args.refiner}")
    with tempfile.TemporaryDirectory() as folder:
        evaluate(args, folder)


def figures_of(recs, preds) -> dict:
    """assess's figures, those without the stretched photos (``plain_``) and those with the labels
    as published (``published_``)."""
    plain = [k for k, r in enumerate(recs) if not r.stretched]
    m = assess(recs, preds)
    m.update({f"plain_{k}": v for k, v in assess([recs[k] for k in plain], [preds[k] for k in plain]).items()})
    m.update({f"published_{k}": v for k, v in assess(recs, preds, merge_duplicates=False).items()})
    return m


ROWS = [("detection recall @0.5", "recall", "{:.1%}", "99%"),
        ("precision (background apart)", "precision", "{:.1%}", "98%"),
        ("precision (strict)", "precision_strict", "{:.1%}", ""),
        ("  unlabelled-background hits", "background", "{}", ""),
        ("  false detections", "false", "{}", ""),
        ("tile accuracy (end to end)", "accuracy", "{:.1%}", "99%"),
        ("  read right, of tiles found", "read_right_of_found", "{:.1%}", ""),
        ("flowers and seasons", "bonus", "{:.1%}", "97%"),
        ("single-row hands read exactly", "rows_exact", "{:.1%}", "97%"),
        ("  the same, strays set apart", "rows_exact_hand", "{:.1%}", ""),
        ("s per photo, {own}", "s_per_photo_640", "{:.3f}", ""),
        ("s per photo, 12 MP", "s_per_photo_12mp", "{:.3f}", "<= peer"),
        ("peak MB, {own} run", "peak_mb_640", "{:.0f}", "500"),
        ("peak MB, 12 MP run", "peak_mb_12mp", "{:.0f}", "500")]
RUN_WIDE = ("s_per_photo_12mp", "peak_mb_640", "peak_mb_12mp")  # figures of a whole run, not of a part


def report(figures: dict, names: list[str], recs, mend: bool, whole_run: bool = True) -> None:
    """The table of figures, a column per system, and the lines under it."""
    sizes = {(r.width, r.height) for r in recs}
    own = "{}x{}".format(*sizes.pop()) if len(sizes) == 1 else "own size"
    widths = [max(12, len(n) + 2) for n in names]
    print(f"{'':<34}" + "".join(f"{n:>{w}}" for n, w in zip(names, widths)) + f"{'target':>10}")
    rows = [(name.format(own=own), key, fmt, target) for name, key, fmt, target in ROWS
            if whole_run or key not in RUN_WIDE]
    stretched = sum(r.stretched for r in recs)
    if stretched:
        keys = ("recall", "precision", "accuracy", "bonus", "rows_exact", "rows_exact_hand")
        rows += [(f"without the {stretched} stretched photos:", None, "", "")]
        rows += [(f"  {name.strip()}", f"plain_{key}", fmt, target) for name, key, fmt, target in rows if key in keys]
    for name, key, fmt, target in rows:
        if key is None:
            print(name)
            continue
        print(f"{name:<34}" + "".join(f"{fmt.format(figures[s][key]) if key in figures[s] else '—':>{w}}"
                                      for s, w in zip(names, widths)) + f"{target:>10}")
    m = figures[names[0]]
    print(f"\nflowers/seasons: {m['bonus_n']} labelled; single-row photos: {m['rows_n']}")
    print(("with each label counted (tiles labelled twice counted twice; the mended codes kept): " if mend
           else "with the labels as published (tiles labelled twice counted twice): ")
          + "; ".join(f"{s} recall {figures[s]['published_recall']:.1%}, accuracy {figures[s]['published_accuracy']:.1%}, "
                      f"single rows {figures[s]['published_rows_exact']:.1%} / {figures[s]['published_rows_exact_hand']:.1%}"
                      for s in names))


def _tiles_line(n: int, what: str, recs) -> str:
    twice = sum(len(r.boxes) - len(r.tiles()) for r in recs)
    return (f"{n} {what}, {sum(len(r.boxes) for r in recs) - twice} labelled tiles ({twice} more labels are second "
            f"labels of a tile already labelled, counted once)")


def evaluate(args, folder: str) -> None:
    parts = photo_parts(args.photos, args.data, folder, seed=args.seed, mend=args.mended)
    if args.mended and any(p.name == "HK valid" for p in parts):
        print("valid's labels found wrong by eye mended (datasets/roboflow_valid_mends.csv)")
    for part in parts:
        recs = part.records[:args.limit] if args.limit else part.records
        if args.frame != 1:
            recs = framed(recs, args.frame, folder)
        if args.twelve:
            recs = grown(recs, folder, part.letterboxed)
        if args.strips:
            recs = strips([r for r in recs if not r.stretched], folder)
        if args.condition:
            recs = conditioned(recs, args.condition, folder)
        part.records = recs
    if args.frame != 1:
        print(f"each photo set in a table {args.frame:g} times as wide and tall")
    if args.twelve:
        print("each photo grown to 12 MP")
    if args.strips:
        print("each row and column of tiles cut out as a band and stretched to the photo's size")
    if args.condition:
        print(f"each photo in the condition {args.condition!r}")
    recs = [r for p in parts for r in p.records]
    paths = [r.path for r in recs]
    if not paths:
        raise SystemExit("no photos to read")
    for p in parts:
        print(_tiles_line(len(p.records), ("bands cut from the " + p.what) if args.strips else p.what, p.records))
    if len(parts) > 1:
        print(_tiles_line(len(recs), "held-out photos in all", recs))
    cols = columns(args.detector, args.baseline_detector, args.refiner)
    names = [c[0] for c in cols]
    refiners = {name: column_refiner(k, system, args.refiner) for k, (name, system, _) in enumerate(cols)}
    figures, by_part = {}, {}
    for name, system, detector in cols:
        res = launch(system, paths, detector, refiners[name])
        m = figures_of(recs, res["preds"])
        m["s_per_photo_640"] = res["seconds"] / len(paths)
        m["peak_mb_640"] = res["peak_mb"]
        if system == "mjcam":
            m["detector"] = os.path.abspath(detector) if detector else os.environ.get("MJCAM_DETECTOR") or "shipped"
            from mjcam.vision.locate import refiner_named

            r = refiners[name] or refiner_named() or "none"  # the worker's own MJCAM_REFINER where none is handed
            m["refiner"] = r if r.lower() == "none" else os.path.abspath(r)
        figures[name] = m
        if len(parts) > 1:
            # each part's time per photo: its photos' own times and its share of loading the models
            times = res.get("times") or [res["seconds"] / len(paths)] * len(paths)
            load = (res["seconds"] - sum(times)) / len(paths)
            k = 0
            for p in parts:
                n = len(p.records)
                pm = figures_of(p.records, res["preds"][k:k + n])
                pm["s_per_photo_640"] = sum(times[k:k + n]) / max(1, n) + load
                by_part.setdefault(p.name, {})[name] = pm
                k += n
            m["parts"] = {p.name: by_part[p.name][name] for p in parts}
    if args.timing > 0:
        each = args.timing if len(parts) == 1 else -(-args.timing // len(parts))
        timed = [r.path for p in parts for r in p.records[:each]]
        boxed = {r.path for p in parts if p.letterboxed for r in p.records}
        with tempfile.TemporaryDirectory() as tmp:
            big = upscaled(timed, tmp, boxed)
            for k in range(max(1, args.rounds)):
                for name, system, detector in (cols if k % 2 == 0 else cols[::-1]):  # each goes first in turn
                    res = launch(system, big, detector, refiners[name])
                    f = figures[name]
                    f["s_per_photo_12mp"] = min(f.get("s_per_photo_12mp", math.inf), res["seconds"] / len(big))
                    f["peak_mb_12mp"] = max(f.get("peak_mb_12mp", 0.0), res["peak_mb"])
    for p in parts if len(parts) > 1 else ():
        print(f"\n{p.name}: {len(p.records)} photos")
        report(by_part[p.name], names, p.records, args.mended and p.name == "HK valid", whole_run=False)
    print(f"\nall {'held-out ' if args.photos == 'all-held-out' else ''}photos: {len(recs)} photos" if len(parts) > 1 else "")
    report(figures, names, recs, args.mended)
    m, peer = figures[names[0]], figures["peer"]
    ratios = [f"accuracy {m['accuracy'] / max(1e-9, peer['accuracy']):.2f}x"]
    if "s_per_photo_12mp" in m:
        ratios.append(f"time at 12 MP {m['s_per_photo_12mp'] / max(1e-9, peer['s_per_photo_12mp']):.2f}x")
    print(f"ratios {names[0]}/peer: " + ", ".join(ratios))
    if args.baseline_detector:
        b = figures[names[1]]
        print(f"{names[0]} against {names[1]}: recall {m['recall'] - b['recall']:+.1%}, precision "
              f"{m['precision'] - b['precision']:+.1%}, accuracy {m['accuracy'] - b['accuracy']:+.1%}, "
              f"single rows {m['rows_exact'] - b['rows_exact']:+.1%}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(figures, fh, indent=1)


if __name__ == "__main__":
    main()
