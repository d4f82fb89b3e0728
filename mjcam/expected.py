"""Readings checked against hands a person wrote down: ``mjcam batch --expected FILE``.

The file lists one photo a line, as CSV with a header ``photo,hand`` (or a JSON object
``{"photo": "hand", ...}``): the photo's file name (or its path as given to batch) and its hand in
notation; an empty hand says the photo shows no winning hand. Photos not listed are not compared.

>>> same_hand("123m 456m 789m 123p 5p +5p", "[123m] 456m 789m 123p 5p +5p")
False
>>> same_hand("5p 123m 456m 789m 123p +5p", "123m 456m 789m 123p 5p +5p")
True
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field

from mjcam.scoring import parse_hand
from mjcam.service import WinFlags, score_hand


class ExpectedError(Exception):
    """A file of expected hands that cannot be read: exit 2 with one line."""


def read_expected(path: str) -> dict[str, str]:
    """``{photo: hand}`` from a CSV (``photo,hand``) or JSON file; a hand may be ``""`` (no win)."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            if path.lower().endswith(".json"):
                data = json.load(fh)
                if not isinstance(data, dict):
                    raise ExpectedError(f"{path}: expected a JSON object of photo: hand")
                rows = [{"photo": str(k), "hand": str(v or "")} for k, v in data.items()]
            else:
                rows = list(csv.DictReader(fh))
    except OSError as e:
        raise ExpectedError(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise ExpectedError(f"{path}: not JSON ({e})") from None
    if rows and not {"photo", "hand"} <= set(rows[0]):
        raise ExpectedError(f"{path}: the CSV needs the columns photo and hand")
    out = {}
    for n, r in enumerate(rows, 2):
        if not (r.get("photo") or "").strip():
            raise ExpectedError(f"{path}:{n}: no photo named")
        hand = (r.get("hand") or "").strip()
        if hand:
            try:
                parse_hand(hand)
            except ValueError as e:
                raise ExpectedError(f"{path}:{n}: {e}") from None
        out[r["photo"].strip()] = hand
    return out


def _tiles(text: str) -> tuple:
    h = parse_hand(text)
    return (tuple(sorted(h.concealed)), tuple(sorted((m.kind, m.tiles, m.concealed) for m in h.melds)),
            tuple(sorted(h.bonus)))


def same_hand(a: str, b: str) -> bool:
    """Whether two hands hold the same tiles in the same sets (whichever tile is marked winning)."""
    return _tiles(a) == _tiles(b)


def paid(r) -> tuple:
    """What a score pays: legal or not, fan, limit, points and every seat's payment."""
    return (r.legal, r.fan, r.limit, r.points, tuple(sorted(r.payments.items())))


@dataclass
class Comparison:
    listed: int = 0  # photos read that the file lists
    wins: int = 0  # ... whose expected hand is a paying win
    auto_wins: int = 0  # ... of those, scored without a person
    auto: int = 0  # photos listed and scored without a person
    wrong: int = 0  # ... whose hand is not the expected one
    paid_wrong: int = 0  # ... and paid differently
    wrong_photos: list = field(default_factory=list)

    def lines(self) -> list[str]:
        def pct(a, b):
            return f"{a / b:.0%}" if b else "-"
        return [f"checked against {self.listed} expected hands: {self.auto_wins} of the {self.wins} winning hands "
                f"scored without a person ({pct(self.auto_wins, self.wins)})",
                f"wrong among those scored without a person: {self.wrong} of {self.auto} "
                f"({pct(self.wrong, self.auto)}), {self.paid_wrong} paid differently"] + [
                f"  {p}: read {got or '-'}, expected {want or '(no winning hand)'}" for p, got, want in self.wrong_photos]


def compare(records: list[dict], expected: dict[str, str], rules: str, house: dict | None = None,
            flags: WinFlags = WinFlags()) -> Comparison:
    """How the batch ``records`` fare against the ``expected`` hands, scored under ``rules`` with
    the ``house`` rules, won as ``flags`` say."""
    c = Comparison()
    for rec in records:
        if rec.get("status") in ("error", "duplicate"):
            continue
        path = rec["path"]
        want = expected.get(path, expected.get(os.path.basename(path)))
        if want is None:
            continue
        c.listed += 1
        want_score = score_hand(want, rules, flags, house) if want else None
        win = want_score is not None and want_score.legal
        c.wins += win
        if rec["status"] != "scored" or rec.get("needs_person"):
            continue
        c.auto += 1
        c.auto_wins += win
        got = rec.get("hand") or ""
        got_score = score_hand(got, rules, flags, house)
        paid_wrong = not win or paid(got_score) != paid(want_score)
        if paid_wrong or not same_hand(got, want):
            c.wrong += 1
            c.paid_wrong += paid_wrong
            c.wrong_photos.append((path, got, want))
    return c
