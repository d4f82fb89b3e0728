"""The evening's game from a folder of photos: ``mjcam batch ... --game NAMES --ledger FILE``.

The scored hands of a batch output become the hands of one game in the table app's ledger
(:mod:`mjcam.ledger`), in the order the photos were taken (:func:`photo_time`, then the file's
name), the deal and the prevailing wind moving on as at the table. Each hand is scored where it
falls: its winner's seat and the prevailing wind are the game's at that hand, and a record scored
otherwise is scored again (from the reading it keeps) and superseded.

Hands that still need a person, and photos that could not be read, are left out and listed; once
a person has confirmed them (``mjcam review``, or a corrections file) the game is built again and
they fall in their place: the ledger takes back the hands from the first that changes (undone,
kept in the file) and records the rest again, so the game holds exactly the folder's hands.

The game is found again by its players and its photos: the ledger's game with these four names
that holds a photo of this output (its hands keep their photo, as the table app shows them).
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field

from mjcam.batch import BatchError, Options, Plan, current, open_output, reason, rescore
from mjcam.scoring.tiles import SEATS
from mjcam.service import CONDITIONS, WinFlags

PHOTO_SIDE = 1280
THUMB_SIDE = 240
_EXIF_TIME = re.compile(r"(\d{4}):(\d\d):(\d\d)[ T](\d\d):(\d\d):(\d\d)")


class GameError(Exception):
    """A game that cannot be built (a bad ledger, players or rules): exit 2 with one line."""


def photo_time(path: str) -> str | None:
    """When the photo at ``path`` was taken, from its EXIF (``2024-05-01T21:04:09``, with the
    fraction of a second where the camera wrote it); None where it does not say."""
    try:
        from PIL import Image

        from mjcam.vision.io import _register_heif

        _register_heif()
        with Image.open(path) as im:
            exif = im.getexif()
            inner = exif.get_ifd(0x8769)
            when = inner.get(0x9003) or inner.get(0x9004) or exif.get(0x0132)
            fraction = str(inner.get(0x9291) or "").strip()
    except Exception:  # noqa: BLE001  (no time: the file's name orders it)
        return None
    m = _EXIF_TIME.match(str(when or "").strip())
    if not m:
        return None
    y, mo, d, h, mi, s = m.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{s}" + (f".{fraction}" if fraction.isdigit() else "")


def taken_order(records: list[dict]) -> list[dict]:
    """``records`` in the order their photos were taken: EXIF time, then the file's name; photos
    that give no time after those that do."""
    def key(r):
        when = r.get("taken") if "taken" in r else photo_time(r["path"])
        return (when is None, when or "", os.path.basename(r["path"]), r["path"])
    return sorted(records, key=key)


def options_of(record: dict) -> Options:
    """The options a record was scored under, as :class:`mjcam.batch.Options`."""
    o = record.get("options") or {}
    house = {k: v for k, v in (o.get("house") or {}).items() if k != "config_sha256"}
    known = set(WinFlags().situation())
    return Options(o.get("rules", "hk-old-style"), tuple(house.items()),
                   WinFlags(**{k: v for k, v in (o.get("situation") or {}).items() if k in known}))


def parse_players(text: str) -> tuple[str, ...]:
    """``"Ann,Bob,Cat,Dan"``: the four players, East of the first deal first."""
    names = tuple(n.strip() for n in text.split(","))
    if len(names) != 4 or not all(names) or any(len(n) > 40 for n in names):
        raise GameError(f"--game takes four names separated by commas (East of the first deal first), not {text!r}")
    if len({n.casefold() for n in names}) < 4:
        raise GameError("--game needs four different names")
    if any(n.upper() in SEATS for n in names):
        raise GameError("a player may not be named E, S, W or N (those name seats)")
    return names


@dataclass
class Night:
    """What building the game did: the game's id, how many hands it holds, how many were taken
    back and recorded again, and a line for each photo left out."""

    game_id: int | None
    hands: int = 0
    added: int = 0
    taken_back: int = 0
    rescored: int = 0
    left_out: list[str] = field(default_factory=list)
    unpaid: list[str] = field(default_factory=list)  # a line for each hand a person gave that is no paying win

    def lines(self, ledger: str) -> list[str]:
        if self.game_id is None:
            head = f"game: no hand is ready for it yet, so {ledger} has no game of these photos"
        else:
            moved = f", after taking back the last {self.taken_back} to keep the order" if self.taken_back else ""
            head = (f"game {self.game_id} in {ledger}: {self.hands} hand{'' if self.hands == 1 else 's'} "
                    f"({self.added} recorded now{moved}); mjcam serve --db {ledger} shows it")
        out = [head]
        if self.left_out:
            out.append(f"left out of the game until a person confirms them ({len(self.left_out)}):")
            out += [f"  {line}" for line in self.left_out]
        if self.unpaid:
            out.append(f"left out of the game as no paying win ({len(self.unpaid)}):")
            out += [f"  {line}" for line in self.unpaid]
        return out


def _place(who: str, players: tuple[str, ...], state) -> int:
    """A player's place at the table: by name, or the seat's place in this deal."""
    return players.index(who) if who in players else state.place_of(who)


def _why(r: dict) -> str:
    if r["status"] == "error":
        return "could not be read: " + reason(r)
    if r["status"] in ("no-hand", "not-a-win"):
        return reason(r)
    return "; ".join(r.get("check") or []) or "a person should check the tiles"


def _picture(record: dict) -> tuple[bytes, bytes] | None:
    """The photo with its reading drawn on it and a thumbnail, as JPEG bytes (as the table app
    keeps them); None where the photo can no longer be read."""
    import cv2

    from mjcam.vision.annotate import annotate
    from mjcam.vision.io import ImageError, load_photo
    from mjcam.vision.pipeline import Recognition

    try:
        image, _ = load_photo(record["path"], PHOTO_SIDE)
    except ImageError:
        return None

    def jpeg(img, side):
        h, w = img.shape[:2]
        s = min(1.0, side / max(h, w))
        if s < 1:
            img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        return cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()

    return jpeg(annotate(image, Recognition.from_json(record)), PHOTO_SIDE), jpeg(image, THUMB_SIDE)


def _photo_hashes(ledger, game_id: int) -> dict[int, str]:
    """``{photo id: SHA-256 of the photo}`` of one game's photos in the ``ledger``."""
    import sqlite3

    db = sqlite3.connect(ledger.path, timeout=30)
    try:
        return dict(db.execute("SELECT id, sha256 FROM photos WHERE game_id = ?", (game_id,)).fetchall())
    finally:
        db.close()


def _find_game(ledger, players: tuple[str, ...], hashes: set[str]) -> int | None:
    for g in ledger.games():  # (newest first)
        if tuple(g["players"]) == players and hashes & set(_photo_hashes(ledger, g["id"]).values()):
            return g["id"]
    return None


def arrange(records: list[dict], options: Options, players: tuple[str, ...], game: dict,
            person: tuple[str, object, str] | None = None) -> tuple[list[dict], list[str], list[str], dict[str, dict]]:
    """The hands of the game ``game`` (the ledger's, or a new one's ``start_round``,
    ``dealer_keeps_on_draw`` and ``flowers_in_play``) from the current ``records``, in the order
    they were taken: each hand to record (its record, the winner's and discarder's places, the
    flags), a line for each photo left out until a person confirms it, a line for each hand a
    person gave that is no paying win (or that they said shows none), and ``{path: record}`` of the
    records scored again as the game has them. ``person``: (path, situation, hand) that a person
    gives one photo, scored in its place as a confirmed hand."""
    from mjcam.ledger import Ledger
    from mjcam.sheets import Situation

    wanted, left_out, unpaid, rescored, played = [], [], [], {}, []
    for r in taken_order(records):
        mine = person is not None and r["path"] == person[0]
        if not mine and (r["status"] == "error" or r.get("needs_person")):
            left_out.append(f"{r['path']}: {_why(r)}")
            continue
        if not mine and r["status"] != "scored":  # a person's hand that is no paying win, or none at all
            unpaid.append(f"{r['path']}: {_why(r)}")
            continue
        state = Ledger._state(game, played)
        if state.over:
            left_out.append(f"{r['path']}: comes after the North round's last deal")
            continue
        given = person[1] if mine else Situation.from_json(r.get("given"))
        base = options.flags
        winner = _place(given.winner if given else base.seat, players, state)
        who = given.discarder if given else base.discarder
        discarder = None if who is None else _place(who, players, state)
        named = set(given.flags) if given else {c for c in CONDITIONS if getattr(base, c)}
        flags = WinFlags(discarder=None if discarder is None else state.seat_of(discarder),
                         seat=state.seat_of(winner), round=state.round, dealer="E",
                         flowers_in_play=options.flags.flowers_in_play, **{c: c in named for c in CONDITIONS})
        if mine or r.get("situation") != flags.situation():  # scored as the game has it at this hand
            hand = person[2] if mine else (r.get("hand") or "") if r.get("confirmed") else None
            r = rescored[r["path"]] = rescore(r, options, Plan(flags, given, hand))
            if r["status"] != "scored" or r.get("needs_person"):
                if not mine:
                    (unpaid if r.get("confirmed") else left_out).append(f"{r['path']}: {_why(r)}")
                continue
        wanted.append({"record": r, "winner": winner, "discarder": discarder,
                       "flags": {c: True for c in sorted(named)}})
        played.append({"kind": "win", "winner": winner, "dealer": state.dealer})
    return wanted, left_out, unpaid, rescored


def game_of(ledger, records: list[dict], options: Options, players: tuple[str, ...]) -> tuple[int | None, dict]:
    """The id of the ledger's game of these records (None: none yet) and what :func:`arrange`
    needs of it. GameError where it is played under other rules."""
    house = {k: v for k, v in options.house if v is not None}
    if set(house) - {"min_fan", "cap", "table", "payment"}:
        raise GameError("a game keeps the house rules --min-fan, --cap, --table and --payment, not a --config file")
    gid = _find_game(ledger, players, {r["hash"] for r in records if r.get("hash")})
    if gid is None:
        return None, {"start_round": options.flags.round, "dealer_keeps_on_draw": True,
                      "flowers_in_play": options.flags.flowers_in_play}
    g = ledger.game(gid)
    if g["preset"] != options.rules or g["house"] != house or g["flowers_in_play"] != options.flags.flowers_in_play:
        raise GameError(f"game {gid} of the ledger is played under other rules ({g['preset']}, "
                        f"{g['house'] or 'no house rules'}); give these photos another --ledger")
    return gid, g


def build(out: str, players: tuple[str, ...], ledger_path: str) -> Night:
    """The game of the records in the batch output ``out``, played by ``players``, built (or
    brought up to date) in the ledger at ``ledger_path``."""
    from mjcam.ledger import Ledger, LedgerError

    try:
        ledger = Ledger(ledger_path)
    except Exception as e:  # noqa: BLE001  (sqlite3.DatabaseError and friends: a bad file)
        raise GameError(f"cannot open the game ledger {ledger_path}: {e}") from None
    output = open_output(out)
    try:
        records = [r for r in current(output.records()) if r["status"] != "duplicate"]
        if not records:
            return Night(None)
        options = options_of(records[0])
        house = {k: v for k, v in options.house if v is not None}
        gid, g = game_of(ledger, records, options, players)
        night = Night(gid)
        wanted, night.left_out, night.unpaid, rescored = arrange(records, options, players, g)
        for r in rescored.values():
            output.write(r)
        night.rescored = len(rescored)
        if not wanted and gid is None:
            return night
        try:
            if gid is None:
                gid = ledger.create_game(list(players), options.rules, house, options.flags.round,
                                         flowers_in_play=options.flags.flowers_in_play)["id"]
                night.game_id = gid
            _sync(ledger, gid, wanted, night)
        except LedgerError as e:
            raise GameError(f"{ledger_path}: {e}") from None
        return night
    finally:
        output.close()


def _sync(ledger, gid: int, wanted: list[dict], night: Night) -> None:
    """Make the game's hands ``wanted``: the hands from the first that differs taken back, the
    rest recorded in order."""
    g = ledger.game(gid)
    photos = _photo_hashes(ledger, gid)
    history = g["history"]
    keep = 0
    for h, w in zip(history, wanted):
        r = w["record"]
        same = (h["kind"] == "win" and photos.get(h["photo_id"]) == r.get("hash") and h["hand"] == r["score"]["hand"]
                and h["winner"] == w["winner"] and h["discarder"] == w["discarder"]
                and {k for k, v in h["flags"].items() if v} == set(w["flags"]))
        if not same:
            break
        keep += 1
    n = len(history)
    while n > keep:
        ledger.undo(gid, "undo-" + secrets.token_hex(12), expected_hands=n)
        n -= 1
        night.taken_back += 1
    by_hash = {v: k for k, v in photos.items()}
    for w in wanted[keep:]:
        r = w["record"]
        pid = by_hash.get(r.get("hash"))
        if pid is None and r.get("hash"):
            pictures = _picture(r)
            if pictures is not None:
                from mjcam.vision.pipeline import Recognition

                d = Recognition.from_json(r).to_json()
                d["image"]["path"] = None
                pid = by_hash[r["hash"]] = ledger.add_photo(gid, r["hash"], d, *pictures)
        ledger.record(gid, f"photo-{(r.get('hash') or 'none')[:16]}-{secrets.token_hex(8)}", "win", r["hand"],
                      w["winner"], w["discarder"], w["flags"], pid, expected_hands=n)
        n += 1
    night.added = len(wanted) - keep
    night.hands = n


__all__ = ["BatchError", "GameError", "Night", "build", "photo_time", "parse_players", "taken_order"]
