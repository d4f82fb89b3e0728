"""How often whose hand it is would be proposed the wrong way: the which-way-up probe's verdict as the
grouping takes it (and the table app proposes a winner from), and only where its evidence is clear.

    python -m benchmarks.up_proposal [--data ../shared/data] [--per 8] [--only held-out|labelled|rendered]
        [--show] [--json FILE]

Cases whose true way up is known, each read once by the shipped recogniser:

- **held-out**: the ten held-out photos standing upright by eye of the probe's own check
  (``models.which_way_up.HELD_OUT_UPRIGHT``), each turned 0°, 90°, 180° and 270° counter-clockwise:
  the tiles' tops point up, left, down, right.
- **labelled**: the real whole-hand photos labelled by eye (``benchmarks/hand_labels``; the probe was
  trained on none of them): taken from the player's seat (``seat-angle``) the tops point up,
  ``upside-down`` down. Photos taken from above with no seat named are counted apart, unjudged.
- **rendered**: the rendered scenes of :mod:`benchmarks.hand_eval` (``--per`` per layout, seed 0):
  seen from across the table the tops point down, from every other view up.

For each set, and for the grouping's verdict (``tops`` told), the sure one (``tops`` told and
``tops_sure``: what the table app proposes a winner from, models/EXPERIMENTS.md "Whose hand, third
candidate") and the clear one (``tops`` told and the evidence clear by :func:`up_clear`, the
first candidate of models/EXPERIMENTS.md "Whose hand", not shipped): how many cases are proposed the
right way, the wrong way, or not at all.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TURNS = ("up", "left", "down", "right")  # where the tops point after each quarter turn counter-clockwise
#: the verdicts counted: the grouping's, the sure one (the table app's) and the first candidate's (clear)
VERDICTS = ("grouping", "sure", "clear")
#: the first candidate's bars: summed log-odds, their mean, the share of standing tiles leaning the way decided
CLEAR_SUM, CLEAR_MEAN, CLEAR_SHARE = 12.0, 2.0, 0.8


def up_clear(evidence: dict | None) -> bool:
    """Whether the probe's evidence (``Recognition.up_evidence``) is clear by the candidate's bars.

    >>> e = {"log_odds": -25.6, "tiles": 10, "leaning": 10}
    >>> up_clear(e), up_clear(dict(e, leaning=7))
    (True, False)
    >>> up_clear({"log_odds": 30.0, "tiles": 16, "leaning": 16}), up_clear(None)
    (False, False)
    """
    if not evidence or not evidence["tiles"]:
        return False
    odds, n = abs(evidence["log_odds"]), evidence["tiles"]
    return odds >= CLEAR_SUM and odds / n >= CLEAR_MEAN and evidence["leaning"] >= CLEAR_SHARE * n


def labelled_truth(layout: str) -> str | None:
    """The way the tiles' tops point in a labelled photo, by its layout tags (None: not labelled).

    >>> labelled_truth("row+rack+seat-angle+clutter"), labelled_truth("row+rack+upside-down+seat-angle")
    ('up', 'down')
    >>> labelled_truth("flat+above+clutter") is None
    True
    """
    tags = set(layout.split("+"))
    if "upside-down" in tags:
        return "down"
    if "seat-angle" in tags:
        return "up"
    return None


def verdicts(truth: str | None, tops: str | None, clear: bool) -> tuple[str, str]:
    """The grouping's verdict and the clear one, each ``right``, ``wrong``, ``none`` or ``unjudged``.

    >>> verdicts("up", "down", False), verdicts("up", "up", True), verdicts(None, "up", True)
    (('wrong', 'none'), ('right', 'right'), ('unjudged', 'unjudged'))
    """
    def one(t):
        if t is None:
            return "none"
        if truth is None:
            return "unjudged"
        return "right" if t == truth else "wrong"

    return one(tops), one(tops if clear else None)


def held_out_cases(data: str):
    import numpy as np

    from datasets.crops import load_rgb
    from datasets.readers import read_yolo
    from models.which_way_up import HELD_OUT_UPRIGHT

    recs = [r for r in read_yolo(os.path.join(data, "roboflow-hk-chinese"), "train")
            if os.path.basename(r.path).startswith(HELD_OUT_UPRIGHT)]
    for r in recs:
        image = load_rgb(r.path)
        for k in range(4):
            yield f"{os.path.basename(r.path)[:40]} turned {90 * k}", TURNS[k], np.ascontiguousarray(np.rot90(image, k))


def labelled_cases(data: str):
    from benchmarks.hand_eval import real_cases
    from mjcam.vision.io import load_image

    for _, row, photo in real_cases(data, None):
        if os.path.exists(photo):
            yield f"{os.path.basename(photo)[:40]} ({row['layout']})", labelled_truth(row["layout"]), load_image(photo)


def rendered_cases(data: str, per: int):
    from benchmarks.hand_eval import rendered_cases as scenes
    from datasets.scenes import LAYOUTS

    for name, scene in scenes(data, per, None):
        yield name, "down" if LAYOUTS[name].get("view") == "across" else "up", scene.image


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.up_proposal", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--per", type=int, default=8, help="rendered scenes per layout")
    ap.add_argument("--only", choices=("held-out", "labelled", "rendered"))
    ap.add_argument("--show", action="store_true", help="print each case proposed the wrong way by either verdict")
    ap.add_argument("--json", help="write every case's evidence and verdicts to this file")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.data):
        raise SystemExit(f"no folder of labelled photos at {a.data} (give it with --data)")
    from mjcam.vision.pipeline import Recognizer

    recognizer = Recognizer()
    sets = {"held-out": lambda: held_out_cases(a.data), "labelled": lambda: labelled_cases(a.data),
            "rendered": lambda: rendered_cases(a.data, a.per)}
    t0 = time.perf_counter()
    everything, counts = [], {}
    for name, cases in sets.items():
        if a.only and a.only != name:
            continue
        c = counts[name] = {v: Counter() for v in VERDICTS}
        for what, truth, image in cases():
            rec = recognizer.read(image)
            clear = up_clear(rec.up_evidence)
            old, new = verdicts(truth, rec.tops, clear)
            sure = verdicts(truth, rec.tops, rec.tops_sure)[1]
            for v, got in zip(VERDICTS, (old, sure, new)):
                c[v][got] += 1
            case = {"set": name, "case": what, "truth": truth, "tops": rec.tops, "clear": clear,
                    "tops_sure": rec.tops_sure, "evidence": rec.up_evidence, "grouping": old, "proposed": new,
                    "sure": sure}
            everything.append(case)
            if a.show and "wrong" in (old, new, sure):
                print(f"  {name}: {what}: truth {truth}, read {rec.tops} ({'sure' if rec.tops_sure else 'not sure'},"
                      f" {'clear' if clear else 'not clear'}), evidence {rec.up_evidence}")
    keys = ("right", "wrong", "none", "unjudged")
    print(f"\n{'':10s} {'verdict':10s}" + "".join(f"{k:>10s}" for k in keys))
    total = {v: Counter() for v in VERDICTS}
    for name, c in counts.items():
        for v in VERDICTS:
            total[v] += c[v]
            print(f"{name:10s} {v:10s}" + "".join(f"{c[v][k]:10d}" for k in keys))
    for v in VERDICTS:
        print(f"{'all':10s} {v:10s}" + "".join(f"{total[v][k]:10d}" for k in keys))
    print(f"\n{len(everything)} cases in {time.perf_counter() - t0:.0f} s")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
