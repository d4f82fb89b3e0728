"""Each photo's own situation and a person's hands: the CSV files of ``mjcam batch --situations``
and ``--corrections``.

- A situations file has the columns ``photo`` (the file's name, or its path as given to batch),
  ``winner`` (a seat ``E``/``S``/``W``/``N`` or, in a game, a player's name), ``discarder`` (the
  same; empty for self-drawn) and, optionally, ``flags`` (winning conditions as ``mjcam score``
  takes them, separated by spaces: ``last-tile kong-replacement``).
- A corrections file has the columns ``photo`` and ``hand`` (notation; empty: the photo shows no
  winning hand), and may have the situation's columns too (``mjcam review`` writes them): a row
  whose ``winner`` is filled in gives the photo's situation as well.

Every bad row is a :class:`SheetError` of one line naming the file and the row.

>>> flag_names("last-tile  --kong-replacement,robbing_kong")
('last_tile', 'kong_replacement', 'robbing_kong')
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

from mjcam.csvcell import cell, uncell
from mjcam.scoring.tiles import SEATS
from mjcam.service import CONDITIONS

SITUATION_COLUMNS = ("winner", "discarder", "flags")
CORRECTION_COLUMNS = ("photo", "hand") + SITUATION_COLUMNS
MAX_SHEET = 8 * 1024 * 1024


class SheetError(Exception):
    """A situations or corrections file that cannot be used: exit 2 with one line."""


def flag_names(text: str) -> tuple[str, ...]:
    """The winning conditions named in ``text`` (spaces or commas between; ``--last-tile``,
    ``last-tile`` and ``last_tile`` alike). ValueError names one that is not a condition."""
    out = []
    for word in text.replace(",", " ").split():
        name = word.strip().lstrip("-").lower().replace("-", "_")
        if name not in CONDITIONS:
            raise ValueError(f"unknown flag {word!r} (flags: {', '.join(c.replace('_', '-') for c in CONDITIONS)})")
        if name not in out:
            out.append(name)
    return tuple(out)


@dataclass(frozen=True)
class Situation:
    """How one hand was won, as a person wrote it: ``winner`` a seat letter or a player's name,
    ``discarder`` the same or None (self-drawn), the winning conditions ``flags``."""

    winner: str
    discarder: str | None = None
    flags: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"winner": self.winner, "discarder": self.discarder, "flags": list(self.flags)}

    @classmethod
    def from_json(cls, d) -> "Situation | None":
        if not isinstance(d, dict) or not isinstance(d.get("winner"), str):
            return None
        return cls(d["winner"], d.get("discarder") or None, tuple(d.get("flags") or ()))


@dataclass(frozen=True)
class Row:
    """One row: the ``photo`` it names, its ``line`` in the file, the ``situation`` (None: none
    given) and, in a corrections file, the person's ``hand`` ("" : no winning hand)."""

    photo: str
    line: int
    situation: Situation | None = None
    hand: str | None = None


def _who(value: str, players: tuple[str, ...]) -> str:
    """A seat letter, or a player's name as the game has it; ValueError otherwise."""
    v = value.strip()
    if v.upper() in SEATS:
        return v.upper()
    for p in players:
        if v.casefold() == p.casefold():
            return p
    if players:
        raise ValueError(f"{value!r} is neither a seat (E, S, W, N) nor a player ({', '.join(players)})")
    raise ValueError(f"a seat is E, S, W or N, not {value!r} (a player's name needs --game)")


def _situation(r: dict, players: tuple[str, ...]) -> Situation:
    winner = _who(r.get("winner") or "", players)
    d = (r.get("discarder") or "").strip()
    discarder = _who(d, players) if d and d.lower() not in ("self", "self-drawn") else None
    if discarder is not None and discarder == winner:
        raise ValueError(f"the discarder {d!r} is the winner; leave it empty for a self-drawn win")
    return Situation(winner, discarder, flag_names(r.get("flags") or ""))


class Sheet:
    """The rows of one file, by the photo they name."""

    def __init__(self, path: str, rows: list[Row]):
        self.path, self.rows = path, rows

    @classmethod
    def read(cls, path: str, kind: str, players: tuple[str, ...] = ()) -> "Sheet":
        """``kind`` is ``situations`` or ``corrections``; ``players``: the game's names, which a
        winner or discarder may be given as."""
        from mjcam.scoring import parse_hand

        need = ("photo", "winner") if kind == "situations" else ("photo", "hand")
        try:
            if not os.path.isfile(path):
                raise SheetError(f"{path}: no such file" if not os.path.exists(path) else f"{path}: not a file")
            if os.path.getsize(path) > MAX_SHEET:
                raise SheetError(f"{path}: over {MAX_SHEET // (1024 * 1024)} MB; a {kind} file is one row per photo")
            with open(path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.DictReader(fh)
                header = [(h or "").strip().lower() for h in reader.fieldnames or ()]
                missing = [c for c in need if c not in header]
                if missing:
                    raise SheetError(f"{path}: a {kind} file needs the columns {', '.join(need)} "
                                     f"(missing {', '.join(missing)})")
                reader.fieldnames = header
                raw = [(reader.line_num, r) for r in reader]
        except OSError as e:
            raise SheetError(f"{path}: cannot read it ({e.strerror})") from None
        except (UnicodeDecodeError, csv.Error) as e:
            raise SheetError(f"{path}: not a CSV file of UTF-8 text ({e})") from None
        rows, seen = [], {}
        for line, r in raw:
            r = {k: uncell((v or "").strip()) for k, v in r.items() if isinstance(k, str)}
            if not any(r.values()):
                continue
            photo = r.get("photo", "")
            where = f"{path}:{line}"
            if not photo:
                raise SheetError(f"{where}: no photo named")
            if photo in seen:
                raise SheetError(f"{where}: {photo} is listed already (line {seen[photo]})")
            seen[photo] = line
            try:
                situation = _situation(r, players) if r.get("winner") else None
                if kind == "situations" and situation is None:
                    raise ValueError("no winner given")
                if kind == "corrections" and not situation and (r.get("discarder") or r.get("flags")):
                    raise ValueError("a discarder or flags without a winner")
                hand = None
                if kind == "corrections":
                    hand = r.get("hand", "")
                    if hand:
                        parse_hand(hand)
            except ValueError as e:  # (NotationError is one)
                raise SheetError(f"{where}: {e}") from None
            rows.append(Row(photo, line, situation, hand))
        return cls(path, rows)

    def match(self, paths: list[str]) -> tuple[dict[str, Row], list[str]]:
        """``{path: row}`` for the photos at ``paths`` that a row names (by the path as given, or
        its end, or the file's name), and a line for each row that names none of them.
        SheetError for a row that names two photos."""
        by_name: dict[str, list[str]] = {}
        for p in paths:
            by_name.setdefault(os.path.basename(p), []).append(p)
        every = set(paths)
        out, unmatched = {}, []
        for row in self.rows:
            name = row.photo.replace("\\", "/")
            if name in every:
                hits = [name]
            elif "/" in name:
                hits = [p for p in paths if p.replace("\\", "/").endswith("/" + name.lstrip("./"))]
            else:
                hits = by_name.get(name, [])
            if len(hits) > 1:
                raise SheetError(f"{self.path}:{row.line}: {row.photo} names {len(hits)} photos "
                                 f"({hits[0]}, {hits[1]}); give its path instead")
            if not hits:
                unmatched.append(f"{self.path}:{row.line}: no photo {row.photo} among those given; row not used")
                continue
            out.setdefault(hits[0], row)
        return out, unmatched


def photo_name(path: str, paths: list[str]) -> str:
    """How a corrections file names the photo at ``path``: its file name, or the path where
    another of ``paths`` has the same name."""
    name = os.path.basename(path)
    return name if sum(os.path.basename(p) == name for p in paths) == 1 else path


def save_correction(path: str, photo: str, hand: str, situation: Situation | None) -> None:
    """Write ``photo``'s row into the corrections file at ``path`` (made if missing; another row
    for the same photo replaced), the whole file replaced at once so that it is never torn."""
    rows, header = [], list(CORRECTION_COLUMNS)
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.DictReader(fh)
                old = [(h or "").strip().lower() for h in reader.fieldnames or ()]
                if old and not {"photo", "hand"} <= set(old):
                    raise SheetError(f"{path}: not a corrections file (no photo and hand columns)")
                reader.fieldnames = old
                header += [h for h in old if h and h not in header]
                rows = [{k: uncell(v or "") for k, v in r.items() if isinstance(k, str)} for r in reader]
        except OSError as e:
            raise SheetError(f"{path}: cannot read it ({e.strerror})") from None
        except (UnicodeDecodeError, csv.Error) as e:
            raise SheetError(f"{path}: not a CSV file of UTF-8 text ({e})") from None
    mine = {"photo": photo, "hand": hand}
    if situation is not None:
        mine.update(winner=situation.winner, discarder=situation.discarder or "",
                    flags=" ".join(f.replace("_", "-") for f in situation.flags))
    rows = [r for r in rows if r.get("photo") != photo] + [mine]
    buf = io.StringIO()
    w = csv.DictWriter(buf, header, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: cell(r.get(k) or "") for k in header})
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise SheetError(f"{path}: cannot write it ({e.strerror})") from None
