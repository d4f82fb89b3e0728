"""Model-card figures for a tile classifier, on data it never trained or tuned on.

    python -m models.evaluate --model models/tile_classifier.onnx --data ../shared/data
    python -m models.evaluate --model /tmp/loso.onnx --camerash     # leave-one-source-out
    python -m models.evaluate --model /tmp/candidate.onnx --held-out  # for choosing, not for the card
    python -m models.evaluate --mended   # valid with the labels found wrong by eye mended

The HK photos of the Roboflow *valid* split (without the Japanese set IMG_27* and the
screenshots, which are reported apart) are cut with the inference path and classified.
A crop is *upright* when its box is clearly taller than wide (w/h < 0.9); the rest are
*sideways*: claimed tiles turned 90 degrees and tiles seen at a slant, whose boxes are wide or square.
The 18 HK photos that Roboflow's square resize stretched out of all shape (``LabelledImage.stretched``)
are counted in the HK figures, as the split is published, and the figures without them follow.
``--as-read`` reads every photo as the recogniser hands it to the classifier: one it finds
stretched out of shape (from its pixels) squeezed back by the factor its reading chose, the
labelled boxes with it; upright and sideways are then told in the squeezed copy.

``--held-out`` reads the training photos held out of every training run (10 % of the *train*
split's source photos, seed 1; all their copies, the mirrored ones flipped back): the figure
models are chosen on, which is why it is no figure for the card.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter

from datasets.crops import load_oriented, load_rgb
from datasets.readers import held_out_sources, mended, read_crop_csv, read_yolo, roboflow_subset
from mjcam.scoring.tiles import FLOWERS, SEASONS
from mjcam.vision.classify import QUICK_SURE, TURN_BELOW, TileClassifier, quick_choice


def as_read(recogniser, img, boxes):
    """The photo and boxes as ``recogniser`` hands them to its classifier: a dim photo brightened
    where the recogniser brightens (:func:`vision.light.brightened`), a photo it finds stretched
    out of shape (:func:`vision.pipeline.stretches`, from the pixels alone) squeezed back by the
    factor its own reading chose, the boxes with it, and a colour cast turned back where the
    recogniser balances (:func:`vision.light.balanced`, judged from its detector's boxes); any
    other photo as it is."""
    from mjcam.vision.light import balanced, brightened
    from mjcam.vision.pipeline import squeezed, stretches

    shown = brightened(img)[0] if recogniser.brighten else img
    if stretches(shown)[0]:
        fx, fy = recogniser.read(img).squeeze  # (it brightens the photo itself: given it once only)
        if (fx, fy) != (1.0, 1.0):
            out = squeezed(shown, fx, fy)
            sx, sy = out.shape[1] / img.shape[1], out.shape[0] / img.shape[0]
            shown, boxes = out, [(b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy) for b in boxes]
    if recogniser.balance:
        shown = balanced(shown, [p.box for p in recogniser.locate(shown)])[0]
    return shown, boxes


def evaluate_valid(clf: TileClassifier, data: str, recognised: bool = False, mend: bool = False) -> dict:
    recs = read_yolo(os.path.join(data, "roboflow-hk-chinese"), "valid")
    if mend:  # the labels found wrong by eye set to the tiles the photos show
        recs = mended(recs)
    rows = []  # (subset, kind, truth, predicted, confidence)
    if recognised:
        from mjcam.vision.pipeline import Recognizer

        recogniser = Recognizer(classifier=clf)
    for rec in recs:
        img = load_rgb(rec.path)
        boxes = [b.box for b in rec.boxes]
        if not boxes:
            continue
        if recognised:
            img, boxes = as_read(recogniser, img, boxes)
        for b, box, lab in zip(rec.boxes, boxes, clf.classify_boxes(img, boxes)):
            w, h = box[2] - box[0], box[3] - box[1]
            # the best tile reading, should the not-a-tile answer be set aside
            tile = lab.code if lab.code != "not-a-tile" else next(
                (c for c, _ in lab.alternatives if c != "not-a-tile"), lab.code)
            rows.append((roboflow_subset(rec.path), "upright" if w / h < 0.9 else "sideways", b.code, lab.code,
                         lab.confidence, tile, rec.stretched))
    out: dict = {}

    def acc(sel):
        sel = list(sel)
        return (sum(r[2] == r[3] for r in sel) / len(sel), len(sel)) if sel else (None, 0)

    hk = [r for r in rows if r[0] == "hk"]
    out["hk_all"] = acc(hk)
    out["hk_upright"] = acc(r for r in hk if r[1] == "upright")
    out["hk_sideways"] = acc(r for r in hk if r[1] == "sideways")
    bonus = FLOWERS + SEASONS
    out["hk_bonus"] = acc(r for r in hk if r[2] in bonus)
    # reported apart as well: the photos Roboflow's square resize stretched out of all shape
    # (their "sideways" crops are upright tiles drawn ten times too wide)
    plain = [r for r in hk if not r[6]]
    out["hk_stretched_photos_tiles"] = sum(r[6] for r in hk)
    out["hk_unstretched_all"] = acc(plain)
    out["hk_unstretched_upright"] = acc(r for r in plain if r[1] == "upright")
    out["hk_unstretched_sideways"] = acc(r for r in plain if r[1] == "sideways")
    out["hk_unstretched_bonus"] = acc(r for r in plain if r[2] in bonus)
    out["japanese"] = acc(r for r in rows if r[0] == "japanese")
    out["screenshots"] = acc(r for r in rows if r[0] == "screenshot")
    out["hk_tile_if_known_to_be_a_tile"] = (sum(r[2] == r[5] for r in hk) / len(hk), len(hk)) if hk else (None, 0)
    wrong = [r for r in hk if r[2] != r[3]]
    out["hk_confusions"] = Counter(f"{r[2]}->{r[3]}" for r in wrong).most_common(12)
    out["hk_read_as_not_a_tile"] = sum(r[3] == "not-a-tile" for r in hk)
    conf_wrong = [r[4] for r in wrong]
    out["hk_wrong_below_threshold"] = (sum(c < 0.8 for c in conf_wrong), len(conf_wrong))
    right = [r[4] for r in hk if r[2] == r[3]]
    out["hk_right_below_threshold"] = (sum(c < 0.8 for c in right), len(right))
    return out


def held_out_photos(data: str, mirrored: str = "models/mirrored.txt", fraction: float = 0.1, seed: int = 1):
    """``(image, record)`` of each labelled held-out training photo (the sources models are chosen
    on: ``fraction`` of them drawn with ``seed``), turned upright and, where listed in ``mirrored``,
    flipped back."""
    recs = read_yolo(os.path.join(data, "roboflow-hk-chinese"), "train")
    held = held_out_sources(recs, fraction, seed)
    flipped = frozenset(open(mirrored).read().split()) if mirrored else frozenset()
    for rec in recs:
        if rec.source in held and rec.boxes:
            yield load_oriented(rec, flipped)


def evaluate_held_out(clf: TileClassifier, data: str, mirrored: str = "models/mirrored.txt",
                      fraction: float = 0.1, seed: int = 1) -> dict:
    right, total, wrong = Counter(), Counter(), Counter()
    bonus = FLOWERS + SEASONS
    for img, rec in held_out_photos(data, mirrored, fraction, seed):
        for b, lab in zip(rec.boxes, clf.classify_boxes(img, [b.box for b in rec.boxes])):
            for k in ("all", "bonus") if b.code in bonus else ("all",):
                total[k] += 1
                right[k] += lab.code == b.code
            if lab.code != b.code:
                wrong[f"{b.code}->{lab.code}"] += 1
    return {"held_out_all": (right["all"] / max(1, total["all"]), total["all"]), "held_out_right": right["all"],
            "held_out_bonus": (right["bonus"] / max(1, total["bonus"]), total["bonus"]),
            "held_out_bonus_right": right["bonus"], "held_out_confusions": wrong.most_common(10)}


def evaluate_camerash(clf: TileClassifier, data: str) -> dict:
    items = read_crop_csv(os.path.join(data, "camerash-tiles"))
    right, wrong = 0, Counter()
    for path, code in items:
        lab = clf.classify_image(load_rgb(path))
        right += lab.code == code
        if lab.code != code:
            wrong[f"{code}->{lab.code}"] += 1
    return {"camerash": (right / len(items), len(items)), "camerash_confusions": wrong.most_common(10)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="models/tile_classifier.onnx")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--camerash", action="store_true", help="test on the Camerash crops (leave-one-source-out)")
    ap.add_argument("--held-out", action="store_true",
                    help="the held-out training photos that models are chosen on (not figures for the card)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    ap.add_argument("--single", action="store_true", help="read each crop once (no half-turn average)")
    ap.add_argument("--turn-below", type=float, default=TURN_BELOW, metavar="T",
                    help="read the half turn only where the first reading's top probability is under T "
                         f"(as shipped: {TURN_BELOW:g}; 1: every crop)")
    ap.add_argument("--as-read", action="store_true",
                    help="valid photos as the recogniser reads them: one it finds stretched out of shape "
                         "squeezed back first (the classifier's crops in the pipeline)")
    ap.add_argument("--mended", action="store_true",
                    help="valid's labels found wrong by eye set to the tiles the photos show "
                         "(datasets/roboflow_valid_mends.csv)")
    ap.add_argument("--bonus", default="models/bonus_reader.onnx",
                    help="the bonus-tile reader that looks again at flowers and seasons ('none': the classifier alone)")
    ap.add_argument("--quick", default="auto",
                    help="the quick network that reads every crop first ('auto': the shipped one with the shipped "
                         "classifier, else none; 'none'; or a file, models.ensemble --extract)")
    ap.add_argument("--quick-sure", type=float, default=QUICK_SURE, metavar="S",
                    help="a crop the quick network gives at least S keeps its reading (as shipped: %(default)s)")
    a = ap.parse_args(argv)
    quick = quick_choice(a.quick, threads=2)
    bonus = None if a.bonus == "none" else TileClassifier(a.bonus, threads=2, turned=not a.single, bonus=None,
                                                          turn_below=1.0)
    clf = TileClassifier(a.model, threads=2, turned=not a.single, bonus=bonus, turn_below=a.turn_below,
                         quick=quick, quick_sure=a.quick_sure)
    clf.session  # noqa: B018
    print(f"quick network: {clf.quick.model_path if clf.quick else 'none'}"
          + (f", its readings kept at {clf.quick_sure:g} and over" if clf.quick else ""))
    res = (evaluate_camerash(clf, a.data) if a.camerash else evaluate_held_out(clf, a.data) if a.held_out
           else evaluate_valid(clf, a.data, recognised=a.as_read, mend=a.mended))
    for k, v in res.items():
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], int) and (v[0] is None or isinstance(v[0], float)):
            print(f"{k:<28}{'-' if v[0] is None else f'{100 * v[0]:.2f} %':>10}  of {v[1]}")
        else:
            print(f"{k:<28}{v}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
