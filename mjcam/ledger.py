"""The game ledger behind ``mjcam serve``: games, recorded hands and their photos in SQLite.

- The schema changes only through named migrations (:data:`MIGRATIONS`), applied in order and
  remembered in the ``migrations`` table.
- WAL journal; every write is one ``BEGIN IMMEDIATE`` transaction, so a crash mid-request leaves
  either the whole hand or none of it; ``synchronous=FULL``, so a hand the page was told is
  recorded survives a power cut too (writes are a few a minute: the cost does not show).
- Text is stored only where it can be written as UTF-8; a lone surrogate that a file holds all
  the same (written before this was checked) is read back as U+FFFD, never as an error.
- Recording a hand reads only the game's last hand and the number of its hands (an index), not
  its history: it costs the same however long the game.
- A recorded hand stores its notation, the preset id and version (a fingerprint of the rules
  with the house rules applied) and the per-seat integer deltas: totals are sums of stored
  deltas, never recomputed, so history does not change when a preset does.
- Each write carries a client-made ``request_id`` (unique): a retried POST returns the hand
  already recorded instead of recording it twice. Writes also carry how many hands the client
  saw; if the game has moved on since, the write is refused as stale.

Players sit at fixed places 0-3 (0 is East in the first deal). The deal moves on as Hong Kong
rules say: the dealer keeps it after winning (and, by the game's setting, after a drawn hand);
otherwise it passes to the right, and when it comes back to the first dealer the prevailing
wind moves on. A player's seat wind is counted from the current dealer, who is East.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass

from mjcam.scoring import PRESET_IDS, ConfigError, ContextError, NotationError, parse_hand
from mjcam.scoring.engine import resolve_preset
from mjcam.scoring.tiles import SEATS
from mjcam.service import CONDITIONS, WinFlags, score_hand

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_games_hands_photos", """
        CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            created REAL NOT NULL,
            players TEXT NOT NULL,              -- JSON list of four names, place 0 first
            preset TEXT NOT NULL,
            house TEXT NOT NULL,                -- JSON house rules (min_fan, cap, table, payment)
            start_round TEXT NOT NULL,
            dealer_keeps_on_draw INTEGER NOT NULL,
            flowers_in_play INTEGER NOT NULL
        );
        CREATE TABLE photos (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES games(id),
            sha256 TEXT NOT NULL,
            created REAL NOT NULL,
            recognition TEXT NOT NULL,
            annotated BLOB NOT NULL,
            thumbnail BLOB NOT NULL
        );
        CREATE TABLE hands (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL,
            request_id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('win', 'draw')),
            notation TEXT,
            preset TEXT NOT NULL,
            preset_version TEXT NOT NULL,
            winner INTEGER,
            discarder INTEGER,
            flags TEXT NOT NULL,
            fan INTEGER,
            points INTEGER,
            d0 INTEGER NOT NULL, d1 INTEGER NOT NULL, d2 INTEGER NOT NULL, d3 INTEGER NOT NULL,
            dealer INTEGER NOT NULL,
            round TEXT NOT NULL,
            photo_id INTEGER REFERENCES photos(id),
            created REAL NOT NULL,
            undone INTEGER NOT NULL DEFAULT 0,
            UNIQUE (game_id, seq)
        );
        CREATE INDEX hands_game ON hands(game_id, undone, seq);
    """),
    ("0002_hand_breakdown", """
        ALTER TABLE hands ADD COLUMN breakdown TEXT;  -- JSON patterns of the recorded score
    """),
    ("0003_undo_requests", """
        CREATE TABLE undos (
            request_id TEXT PRIMARY KEY,
            hand_id INTEGER NOT NULL REFERENCES hands(id),
            created REAL NOT NULL
        );
    """),
]

def _encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a lone surrogate, from a JSON ``\\ud800``, cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _mend(value):
    """``value`` (as read from JSON) with every lone surrogate in its texts made U+FFFD."""
    if isinstance(value, str):
        return value if _encodable(value) else value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_mend(v) for v in value]
    if isinstance(value, dict):
        return {_mend(k): _mend(v) for k, v in value.items()}
    return value


def _loads(text: str):
    """A JSON column read back: a text that cannot be written as UTF-8 is mended (:func:`_mend`)
    rather than left to fail every page that shows it."""
    value = json.loads(text)
    return value if _encodable(text) and "\\ud" not in text.lower() else _mend(value)


class LedgerError(ValueError):
    """A request the ledger refuses; ``status`` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet applied; returns their names."""
    db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)")
    done = {r[0] for r in db.execute("SELECT name FROM migrations")}
    applied = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        try:  # the migration and its record in one transaction
            db.executescript(f"BEGIN IMMEDIATE; {sql}; INSERT INTO migrations VALUES ('{name}', {time.time()}); COMMIT;")
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


@dataclass
class DealState:
    dealer: int  # the place of the dealer
    round: str  # prevailing wind
    hand_number: int  # hands played (recorded, not undone)
    over: bool  # the North round's last deal has passed

    def seat_of(self, place: int) -> str:
        return SEATS[(place - self.dealer) % 4]

    def place_of(self, seat: str) -> int:
        return (SEATS.index(seat) + self.dealer) % 4


def _same_write(old, kind: str, hand: str | None, winner, discarder, flags: dict | None) -> bool:
    """Whether a write repeats the hand recorded under its request id (a retry), not another: the
    same kind, and for a win the same tiles and sets (in any order), winner, discarder and flags."""
    if old["kind"] != kind:
        return False
    if kind == "draw":
        return True

    def tiles(text):
        h = parse_hand(text)
        return h.concealed, sorted(h.melds, key=lambda m: (m.kind, m.tiles, m.concealed)), sorted(h.bonus), h.winning

    def said(f: dict) -> dict:  # the flags given, none of them false or empty
        return {k: v for k, v in f.items() if v not in (False, None)}

    try:
        same_hand = tiles(hand) == tiles(old["notation"])
    except (NotationError, TypeError):
        same_hand = False
    return (same_hand and old["winner"] == winner and old["discarder"] == discarder
            and said(json.loads(old["flags"])) == said(flags or {}))


class Ledger:
    """All reads and writes of one SQLite file. Safe to share between threads (a connection per
    call)."""

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            migrate(db)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=FULL")
        return _Closing(db)

    # ------------------------------------------------------------ games

    def create_game(self, players: list[str], preset: str = "hk-old-style", house: dict | None = None,
                    start_round: str = "E", dealer_keeps_on_draw: bool = True, flowers_in_play: bool = True) -> dict:
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
            raise LedgerError("a game needs four player names (1 to 40 characters each)")
        names = [p.strip() for p in players]
        if len(names) != 4 or not all(names) or any(len(n) > 40 for n in names):
            raise LedgerError("a game needs four player names (1 to 40 characters each)")
        if not all(_encodable(n) for n in names):
            raise LedgerError("a player name holds text that is not valid Unicode: retype it")
        if len({n.casefold() for n in names}) < 4:  # the scores and the CSV are kept by name
            raise LedgerError("the four players need four different names")
        if not isinstance(preset, str) or preset not in PRESET_IDS:
            raise LedgerError(f"unknown preset {str(preset)[:40]!r}; choose one of {', '.join(PRESET_IDS)}")
        if not isinstance(start_round, str) or start_round not in SEATS:
            raise LedgerError(f"the prevailing wind is E, S, W or N, not {str(start_round)[:10]!r}")
        if house is not None and not isinstance(house, dict):
            raise LedgerError("house rules are an object of min_fan, cap, table, payment")
        house = {k: v for k, v in (house or {}).items() if v not in (None, "")}
        unknown = set(house) - {"min_fan", "cap", "table", "payment"}
        if unknown:
            raise LedgerError(f"unknown house rule {sorted(unknown)[0]!r}")
        try:
            resolve_preset(preset, **house)
        except (ConfigError, TypeError, ValueError) as e:
            raise LedgerError(f"bad house rules: {e}") from None
        with self._connect() as db:
            cur = db.execute("INSERT INTO games (created, players, preset, house, start_round, dealer_keeps_on_draw, "
                             "flowers_in_play) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (time.time(), json.dumps(names), preset, json.dumps(house), start_round,
                              int(bool(dealer_keeps_on_draw)), int(bool(flowers_in_play))))
            return self.game(cur.lastrowid, db)

    def _game_row(self, db, game_id: int) -> sqlite3.Row:
        row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise LedgerError(f"no game {game_id}", 404)
        return row

    def check_game(self, game_id: int) -> None:
        """LedgerError 404 unless the game exists."""
        with self._connect() as db:
            self._game_row(db, game_id)

    def _hands(self, db, game_id: int) -> list[sqlite3.Row]:
        return db.execute("SELECT * FROM hands WHERE game_id = ? AND undone = 0 ORDER BY seq", (game_id,)).fetchall()

    @staticmethod
    def _state(game: sqlite3.Row, hands) -> DealState:
        dealer, rnd, over = 0, SEATS.index(game["start_round"]), False
        for h in hands:
            dealer, rnd, over = Ledger._deal_after(game, h, dealer, rnd, over)
        return DealState(dealer, SEATS[rnd], len(hands), over)

    @staticmethod
    def _deal_after(game: sqlite3.Row, hand, dealer: int, rnd: int, over: bool) -> tuple[int, int, bool]:
        """The deal ``(dealer, round index, over)`` after ``hand``, played in the deal given: the dealer
        keeps it on their own win (or on a drawn hand, where the game says so); otherwise it passes to
        the next player, and the round moves on when it comes back to the first (after the North round,
        the game is over)."""
        keep = (hand["kind"] == "win" and hand["winner"] == hand["dealer"]) or \
            (hand["kind"] == "draw" and game["dealer_keeps_on_draw"])
        if not keep:
            dealer = (dealer + 1) % 4
            if dealer == 0:
                rnd += 1
                if rnd == 4:
                    over, rnd = True, 3
        return dealer, rnd, over

    @staticmethod
    def _state_after(game: sqlite3.Row, last, count: int) -> DealState:
        """The deal now, from the last hand played (its dealer and wind as stored) alone: the same
        as :meth:`_state` over every hand, without reading them."""
        if last is None:
            return DealState(0, game["start_round"], 0, False)
        dealer, rnd, over = Ledger._deal_after(game, last, last["dealer"], SEATS.index(last["round"]), False)
        return DealState(dealer, SEATS[rnd], count, over)

    def game(self, game_id: int, db=None) -> dict:
        if db is None:
            with self._connect() as db:
                return self.game(game_id, db)
        g = self._game_row(db, game_id)
        hands = self._hands(db, game_id)
        st = self._state(g, hands)
        players = _loads(g["players"])
        totals = [0, 0, 0, 0]
        history = []
        for i, h in enumerate(hands, 1):
            deltas = [h["d0"], h["d1"], h["d2"], h["d3"]]
            totals = [a + b for a, b in zip(totals, deltas)]
            history.append({"number": i, "id": h["id"], "kind": h["kind"], "hand": h["notation"],
                            "winner": h["winner"], "discarder": h["discarder"], "fan": h["fan"],
                            "points": h["points"], "deltas": deltas, "totals": list(totals),
                            "dealer": h["dealer"], "round": h["round"], "preset": h["preset"],
                            "preset_version": h["preset_version"], "flags": _loads(h["flags"]),
                            "photo_id": h["photo_id"],
                            "patterns": _loads(h["breakdown"]) if h["breakdown"] else []})
        return {"id": g["id"], "players": players, "preset": g["preset"], "house": _loads(g["house"]),
                "start_round": g["start_round"], "dealer_keeps_on_draw": bool(g["dealer_keeps_on_draw"]),
                "flowers_in_play": bool(g["flowers_in_play"]),
                "dealer": st.dealer, "round": st.round, "hands_recorded": st.hand_number, "over": st.over,
                "seats": [st.seat_of(p) for p in range(4)], "totals": totals, "history": history}

    def games(self) -> list[dict]:
        with self._connect() as db:
            rows = db.execute("SELECT id, created, players, preset FROM games ORDER BY id DESC").fetchall()
        return [{"id": r["id"], "created": r["created"], "players": _loads(r["players"]), "preset": r["preset"]}
                for r in rows]

    # ------------------------------------------------------------ scoring a proposed hand

    @staticmethod
    def _preset(g: sqlite3.Row):
        """The game's preset with its house rules."""
        try:
            return resolve_preset(g["preset"], **json.loads(g["house"]))
        except ConfigError as e:
            raise LedgerError(str(e), 422) from None

    def _score(self, g: sqlite3.Row, preset, st: DealState, hand: str, winner, discarder, flags: dict):
        if isinstance(hand, str) and not _encodable(hand):
            raise LedgerError("the hand holds text that is not valid Unicode: retype it")
        if not isinstance(winner, int) or not 0 <= winner < 4:
            raise LedgerError("winner must be a player place 0-3")
        if discarder is not None and (not isinstance(discarder, int) or not 0 <= discarder < 4 or discarder == winner):
            raise LedgerError("discarder must be another player's place 0-3, or none for self-drawn")
        flags = dict(flags or {})
        unknown = set(flags) - set(CONDITIONS) - {"responsible"}
        if unknown:
            raise LedgerError(f"unknown flag {sorted(unknown)[0]!r}")
        sit = {k: bool(flags.get(k)) for k in CONDITIONS}
        if flags.get("responsible") is not None:
            r = flags["responsible"]
            if not isinstance(r, int) or not 0 <= r < 4:
                raise LedgerError("responsible must be a player place 0-3")
            sit["responsible"] = st.seat_of(r)
        won = WinFlags(discarder=None if discarder is None else st.seat_of(discarder), seat=st.seat_of(winner),
                       round=st.round, dealer="E", flowers_in_play=bool(g["flowers_in_play"]), **sit)
        try:
            result = score_hand(hand, preset, won)
        except (NotationError, ContextError, ConfigError) as e:
            raise LedgerError(str(e), 422) from None
        deltas = [int(result.payments[st.seat_of(p)]) for p in range(4)]
        return result, deltas

    def preview(self, game_id: int, hand: str, winner: int, discarder: int | None = None, flags: dict | None = None) -> dict:
        with self._connect() as db:
            g = self._game_row(db, game_id)
            st = self._state(g, self._hands(db, game_id))
        result, deltas = self._score(g, self._preset(g), st, hand, winner, discarder, flags or {})
        return {"score": result.to_json(), "deltas": deltas, "legal": result.legal, "seats": [st.seat_of(p) for p in range(4)]}

    # ------------------------------------------------------------ writes

    def _begin(self, db, request_id, game_id: int, expected: int | None):
        """Start the write; returns the hand already recorded under this request id, if any."""
        if not isinstance(request_id, str) or not 8 <= len(request_id) <= 80 or not _encodable(request_id):
            raise LedgerError("every write needs a request_id (8 to 80 characters)")
        db.execute("BEGIN IMMEDIATE")
        old = db.execute("SELECT id, game_id FROM hands WHERE request_id = ?", (request_id,)).fetchone()
        if old is not None:
            if old["game_id"] != game_id:
                raise LedgerError("request_id already used for another game", 409)
            return old["id"]
        g = self._game_row(db, game_id)
        count = db.execute("SELECT COUNT(*) FROM hands WHERE game_id = ? AND undone = 0", (game_id,)).fetchone()[0]
        if expected is not None and expected != count:
            raise LedgerError(f"stale: the game has {count} hands recorded, not {expected}; reload", 409)
        last = db.execute("SELECT kind, winner, dealer, round FROM hands WHERE game_id = ? AND undone = 0 "
                          "ORDER BY seq DESC LIMIT 1", (game_id,)).fetchone()
        return g, self._state_after(g, last, count)

    def record(self, game_id: int, request_id: str, kind: str, hand: str | None = None, winner: int | None = None,
               discarder: int | None = None, flags: dict | None = None, photo_id: int | None = None,
               expected_hands: int | None = None, view: bool = True) -> tuple[dict, bool]:
        """Record a win or a drawn hand. Returns (game, created) — created is False for a repeat.
        With ``view`` false the game is given as ``{"id", "hands_recorded"}`` only: recording many
        hands in a row then costs the same for each, however long the game."""
        if kind not in ("win", "draw"):
            raise LedgerError("kind is 'win' or 'draw'")
        with self._connect() as db:
            try:
                begun = self._begin(db, request_id, game_id, expected_hands)
                if isinstance(begun, int):  # a retry: the same hand again, or a mistake
                    old = db.execute("SELECT kind, notation, winner, discarder, flags FROM hands WHERE id = ?",
                                     (begun,)).fetchone()
                    db.execute("ROLLBACK")
                    if not _same_write(old, kind, hand, winner, discarder, flags):
                        raise LedgerError("request_id already used for another hand: send a new one", 409)
                    return self._view(game_id, db, view), False
                g, st = begun
                if st.over:
                    raise LedgerError("the game is over: the North round has been played", 409)
                if photo_id is not None and db.execute("SELECT 1 FROM photos WHERE id = ? AND game_id = ?",
                                                       (photo_id, game_id)).fetchone() is None:
                    raise LedgerError(f"no photo {photo_id} in this game")
                seq = (db.execute("SELECT MAX(seq) FROM hands WHERE game_id = ?", (game_id,)).fetchone()[0] or 0) + 1
                preset = self._preset(g)
                if kind == "draw":
                    row = (None, None, None, {}, None, None, [0, 0, 0, 0], None)
                else:
                    if not hand:
                        raise LedgerError("a win needs the hand")
                    result, deltas = self._score(g, preset, st, hand, winner, discarder, flags or {})
                    if not result.legal:
                        raise LedgerError(f"not a legal win: {result.reason}", 422)
                    breakdown = [{"id": p["id"], "name": p["name"], "zh": p["zh"], "fan": p["fan"]}
                                 for p in result.to_json()["patterns"]]
                    row = (result.to_json()["hand"], winner, discarder, flags or {}, result.fan, result.points, deltas,
                           json.dumps(breakdown, ensure_ascii=False))
                notation, win, disc, fl, fan, points, deltas, breakdown = row
                db.execute("INSERT INTO hands (game_id, seq, request_id, kind, notation, preset, preset_version, winner, "
                           "discarder, flags, fan, points, d0, d1, d2, d3, dealer, round, photo_id, created, breakdown) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (game_id, seq, request_id, kind, notation, g["preset"], preset.version, win, disc,
                            json.dumps(fl), fan, points, *deltas, st.dealer, st.round, photo_id, time.time(), breakdown))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return self._view(game_id, db, view), True

    def _view(self, game_id: int, db, whole: bool) -> dict:
        if whole:
            return self.game(game_id, db)
        return {"id": game_id, "hands_recorded": db.execute("SELECT COUNT(*) FROM hands WHERE game_id = ? AND "
                                                            "undone = 0", (game_id,)).fetchone()[0]}

    def undo(self, game_id: int, request_id: str, expected_hands: int | None = None) -> dict:
        """Take back the last recorded hand (kept in the file, marked undone)."""
        if not isinstance(request_id, str) or not 8 <= len(request_id) <= 80 or not _encodable(request_id):
            raise LedgerError("every write needs a request_id (8 to 80 characters)")
        with self._connect() as db:
            try:
                db.execute("BEGIN IMMEDIATE")
                self._game_row(db, game_id)
                if db.execute("SELECT 1 FROM undos WHERE request_id = ?", (request_id,)).fetchone():
                    db.execute("ROLLBACK")
                    return self.game(game_id, db)
                hands = self._hands(db, game_id)
                if expected_hands is not None and expected_hands != len(hands):
                    raise LedgerError(f"stale: the game has {len(hands)} hands recorded, not {expected_hands}; reload", 409)
                if not hands:
                    raise LedgerError("no hand to undo", 409)
                db.execute("UPDATE hands SET undone = 1 WHERE id = ?", (hands[-1]["id"],))
                db.execute("INSERT INTO undos (request_id, hand_id, created) VALUES (?, ?, ?)",
                           (request_id, hands[-1]["id"], time.time()))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return self.game(game_id, db)

    def add_photo(self, game_id: int, sha256: str, recognition: dict, annotated: bytes, thumbnail: bytes) -> int:
        with self._connect() as db:
            self._game_row(db, game_id)
            cur = db.execute("INSERT INTO photos (game_id, sha256, created, recognition, annotated, thumbnail) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (game_id, sha256, time.time(),
                                                           json.dumps(recognition, ensure_ascii=False),
                                                           annotated, thumbnail))
            return cur.lastrowid

    def photo(self, photo_id: int, which: str) -> bytes:
        col = {"annotated": "annotated", "thumb": "thumbnail"}[which]
        with self._connect() as db:
            row = db.execute(f"SELECT {col} FROM photos WHERE id = ?", (photo_id,)).fetchone()
        if row is None:
            raise LedgerError(f"no photo {photo_id}", 404)
        return bytes(row[0])

    def export_csv(self, game_id: int) -> str:
        """The game as CSV; every text cell written so that no spreadsheet runs it as a formula
        (:mod:`mjcam.csvcell`: a player named ``=cmd|...`` shows as text)."""
        import csv
        import io

        from mjcam.csvcell import cell

        class Cells:
            def __init__(self, writer):
                self.writer = writer

            def writerow(self, row):
                self.writer.writerow([cell(v) for v in row])

        g = self.game(game_id)
        buf = io.StringIO()
        w = Cells(csv.writer(buf, lineterminator="\n"))
        names = g["players"]
        w.writerow(["hand", "round", "dealer", "kind", "winner", "discarder", "notation", "fan", "points", "preset",
                    "preset_version"] + [f"{n} delta" for n in names] + [f"{n} total" for n in names])
        for h in g["history"]:
            w.writerow([h["number"], h["round"], names[h["dealer"]], h["kind"],
                        "" if h["winner"] is None else names[h["winner"]],
                        "" if h["discarder"] is None else names[h["discarder"]], h["hand"] or "",
                        "" if h["fan"] is None else h["fan"], "" if h["points"] is None else h["points"],
                        h["preset"], h["preset_version"]] + h["deltas"] + h["totals"])
        return buf.getvalue()


class _Closing:
    """A connection that closes at the end of a with block (sqlite3's own only ends transactions)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __getattr__(self, name):
        return getattr(self._db, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._db.close()
