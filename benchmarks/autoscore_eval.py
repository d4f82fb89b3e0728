"""How often a photographed hand is scored without a person, and how often such a hand is wrong.

    python -m benchmarks.autoscore_eval [--data ../shared/data] [--photos valid|held-out] [--sweep]
        [--rules ID] [--seat SEAT] [--temperature T] [--write-expected FILE.csv]

Photos: the HK photos of the Roboflow *valid* split (as ``recognize_eval.py`` reads them, with the
labels found wrong by eye mended), or the training photos held out of every model's training
(``--photos held-out``: where the thresholds are chosen). Each photo is read by the shipped
recogniser and judged by :func:`mjcam.vision.trust.check` under the rules and situation given
(default: hk-old-style, self-drawn, seat East, as ``mjcam batch`` scores). ``--temperature``: the
classifier's figures tempered by another temperature than the shipped one (1: as the classifier
gives them), to judge a calibration against another.

Printed:

- **auto-scored**: of the photos whose labelled tiles make a winning hand, the share scored
  without a person (target: over 60 %);
- **wrong among auto-scored**: of every photo scored without a person (winning hand or not), the
  share whose hand is not the hand in the photo — a tile read wrong, a labelled tile missed or
  left out, or a photo of no winning hand scored as one (target: under 1 %); and how many of
  those were *paid* wrong (fan, points or a payment differs from the hand in the photo);
- with ``--sweep``, both figures for other thresholds.

A photo's true hand is the reading's own sets with each tile's labelled code (tiles are matched
to labelled boxes at IoU 0.5); where the reading missed a labelled tile, the labelled tiles
grouped as the recogniser groups tiles. ``--write-expected`` writes the latter for every photo
(``photo,hand``; an empty hand: no winning hand), the file ``mjcam batch --expected`` reads.
"""

from __future__ import annotations

import argparse
import csv
import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SWEEP_PLAUSIBLE = (0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.5)
SWEEP_TOSS_UP = (0.5, 0.75, 99.0)


def photos(data: str, which: str) -> list:
    from datasets.readers import held_out_sources, mended, read_yolo, roboflow_subset

    root = os.path.join(data, "roboflow-hk-chinese")
    if which == "valid":
        return mended([r for r in read_yolo(root, "valid") if roboflow_subset(r.path) == "hk"])
    recs = read_yolo(root, "train")  # the same held-out sources as the models' training (seed 1, a tenth)
    held = held_out_sources(recs, 0.1, 1)
    return [r for r in recs if r.source in held and r.boxes]


def label_hand(label) -> str | None:
    """The labelled tiles grouped as the recogniser groups read tiles (all sure): the hand in notation."""
    from mjcam.vision.group import MeldGrouper, TileObs, hand_and_strays
    from mjcam.vision.layout import orientations

    tiles = label.tiles()
    boxes, codes = [t[0] for t in tiles], [t[1][0] for t in tiles]
    orient, _ = orientations(boxes, codes)
    obs = [TileObs(b, c, 1.0, [], o) for b, c, o in zip(boxes, codes, orient)]
    hand, _ = hand_and_strays(obs)
    return MeldGrouper()([obs[i] for i in hand]).hand


def canonical(text: str | None):
    """A hand as what it holds: its concealed tiles, sets and bonus tiles, whichever is the winning tile."""
    from mjcam.scoring import parse_hand

    if not text:
        return None
    try:
        h = parse_hand(text)
    except ValueError:
        return text
    return (tuple(sorted(h.concealed)), tuple(sorted((m.kind, m.tiles, m.concealed) for m in h.melds)),
            tuple(sorted(h.bonus)))


def truth(label, rec) -> dict:
    """The hand the photo holds (``hand``; None: no hand can be written), seen through the reading:
    its sets with each tile's labelled code, where every labelled tile was found in the hand;
    otherwise the labelled tiles grouped afresh (:func:`label_hand`)."""
    from collections import Counter

    from datasets.crops import iou
    from mjcam.scoring import parse_hand
    from mjcam.scoring.tiles import INDEX
    from mjcam.vision.trust import _hand_text

    tiles = label.tiles()
    used = [False] * len(tiles)
    true_codes: list[tuple | None] = []
    for t in rec.tiles:
        ious = [0.0 if used[j] else iou(t.box, lt[0]) for j, lt in enumerate(tiles)]
        j = max(range(len(tiles)), key=lambda k: ious[k]) if tiles else -1
        if j >= 0 and ious[j] >= 0.5:
            used[j] = True
            true_codes.append(tiles[j][1])
        else:
            true_codes.append(None)
    stray = {p for g in rec.groups if g["kind"] == "stray" for p in g["tiles"]}
    found_all = all(used) and not any(true_codes[p] is not None for p in stray)
    text = None
    if found_all and rec.groups and all(tc is not None for p, tc in enumerate(true_codes) if p not in stray):
        codes = [t.code if tc is None or t.code in tc else tc[0] for t, tc in zip(rec.tiles, true_codes)]
        text = _hand_text(rec.groups, codes, rec.winning)
    if text is None and rec.hand:  # the hand read holds exactly the labelled tiles: it is the photo's hand
        try:
            h = parse_hand(rec.hand)
            read = Counter(list(h.concealed) + [t for m in h.melds for t in m.tiles] + list(h.bonus))
        except ValueError:
            read = None
        if read is not None and read == Counter(INDEX[c[0]] for _, c in tiles if c[0] in INDEX):
            text = rec.hand
    return {"hand": text if text is not None else label_hand(label)}


def judge(cases, rules: str, options: dict, plausible: float, toss_up: float) -> dict:
    from mjcam.scoring import score
    from mjcam.vision.trust import _key, check

    n = wins = auto = auto_wins = wrong = paid_wrong = 0
    wrong_cases = []
    for label, rec, tr in cases:
        n += 1
        true_score = None
        if tr["hand"]:
            try:
                true_score = score(tr["hand"], rules, **options)
            except ValueError:
                true_score = None
        win = true_score is not None and true_score.legal
        wins += win
        verdict = check(rec, rules, plausible=plausible, toss_up=toss_up, **options)
        if not verdict.auto:
            continue
        auto += 1
        auto_wins += win
        paid = not win or _key(verdict.score) != _key(true_score)
        bad = paid or canonical(rec.hand) != canonical(tr["hand"])
        wrong += bad
        paid_wrong += paid
        if bad:
            wrong_cases.append((os.path.basename(label.path), rec.hand, tr["hand"], paid))
    return {"photos": n, "wins": wins, "auto": auto, "auto_wins": auto_wins, "wrong": wrong,
            "paid_wrong": paid_wrong, "wrong_cases": wrong_cases}


def share(a: int, b: int) -> str:
    return f"{a / b:.1%}" if b else "-"


def main(argv=None) -> None:
    from mjcam.scoring import PRESET_IDS
    from mjcam.vision import trust
    from mjcam.vision.pipeline import default_recognizer

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--photos", choices=("valid", "held-out"), default="valid")
    ap.add_argument("--limit", type=int, default=0, help="only the first N photos")
    ap.add_argument("--rules", default="hk-old-style", choices=PRESET_IDS)
    ap.add_argument("--seat", default="E", choices=("E", "S", "W", "N"), help="the winner's seat (default E)")
    ap.add_argument("--sweep", action="store_true", help="also print the figures for other thresholds")
    ap.add_argument("--write-expected", metavar="FILE.csv", help="write each photo's labelled hand (photo,hand)")
    ap.add_argument("--list", action="store_true", help="list the photos auto-scored wrong")
    ap.add_argument("--temperature", type=float, help="the classifier's temperature (default: the shipped one)")
    args = ap.parse_args(argv)
    if args.temperature is not None and not args.temperature > 0:
        ap.error(f"--temperature must be above 0, not {args.temperature:g}")

    labels = photos(args.data, args.photos)
    if args.limit:
        labels = labels[:args.limit]
    if args.temperature is None:
        rec = default_recognizer()
    else:
        from mjcam.vision.classify import TileClassifier
        from mjcam.vision.pipeline import Recognizer

        rec = Recognizer(classifier=TileClassifier(temperature=args.temperature))
    t0 = time.perf_counter()
    cases = []
    for label in labels:
        r = rec(label.path)
        cases.append((label, r, truth(label, r)))
    dt = time.perf_counter() - t0
    options = {"seat": args.seat}
    what = {"valid": "HK photos of the valid split", "held-out": "held-out training photos"}[args.photos]
    print(f"{len(cases)} {what}, read in {dt:.0f} s; scored under {args.rules}, self-drawn, seat {args.seat}; "
          f"classifier temperature {rec.classifier.temperature:g}")
    print(f"thresholds: an alternative {trust.PLAUSIBLE:g} times as likely as the code read is plausible; "
          f"{trust.TOSS_UP:g} times, a toss-up")
    m = judge(cases, args.rules, options, trust.PLAUSIBLE, trust.TOSS_UP)
    print(f"\nphotos whose labelled tiles make a winning hand: {m['wins']} of {m['photos']}")
    print(f"auto-scored (scored without a person), of those: {m['auto_wins']} ({share(m['auto_wins'], m['wins'])})"
          f"{'target > 60%':>24}")
    print(f"wrong among auto-scored: {m['wrong']} of {m['auto']} ({share(m['wrong'], m['auto'])})"
          f"{'target < 1%':>30}")
    print(f"  of which paid wrong (fan, points or a payment): {m['paid_wrong']} ({share(m['paid_wrong'], m['auto'])})")
    if args.list or m["wrong_cases"]:
        for name, read, true, paid in m["wrong_cases"]:
            print(f"  {name[:40]}: read {read}  photo {true or '(no winning hand)'}{'  paid wrong' if paid else ''}")
    if args.sweep:
        print(f"\n{'plausible':>10}{'toss-up':>9}{'auto-scored':>14}{'wrong':>10}{'paid wrong':>12}")
        for pl in SWEEP_PLAUSIBLE:
            for tu in SWEEP_TOSS_UP:
                s = judge(cases, args.rules, options, pl, tu)
                print(f"{pl:>10g}{'off' if tu > 10 else f'{tu:g}':>9}{share(s['auto_wins'], s['wins']):>14}"
                      f"{share(s['wrong'], s['auto']):>10}{share(s['paid_wrong'], s['auto']):>12}")
    if args.write_expected:
        with open(args.write_expected, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["photo", "hand"])
            for label, _, _ in cases:
                hand = label_hand(label)
                try:
                    from mjcam.scoring import score

                    legal = bool(hand) and score(hand, args.rules, **options).arrangement is not None
                except ValueError:
                    legal = False
                w.writerow([os.path.basename(label.path), hand if legal else ""])
        print(f"\nexpected hands written to {args.write_expected}")


if __name__ == "__main__":
    main()
