"""``mjcam batch``: read and score folders of saved photos — resumable, lossless, parallel.

- Folders are walked recursively for pictures (:data:`SUPPORTED`); files named directly are
  always tried, so a bad one is recorded, not skipped.
- One record per photo, appended as soon as it is done: JSON Lines and CSV get one whole line
  per record, flushed and synced; SQLite one transaction per record. A run killed at any moment
  loses at most the photos in flight; a torn last line (a kill in the middle of a write) is cut
  off on the next run.
- A re-run skips every photo whose content (SHA-256) is already recorded; a photo whose content
  was already read under another name in the same run is recorded as a duplicate.
- ``--workers N`` runs N local processes, each loading the models once; ``--dask ADDRESS`` (or
  ``local``) sends the same work to a Dask distributed cluster. Records are written by this
  process only, so output is the same whichever runs the work.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import os
import sqlite3
import stat
import sys
import time
from dataclasses import dataclass, field

from mjcam.scoring.notation import NotationError
from mjcam.scoring.tiles import SEATS
from mjcam.service import WinFlags, judge, read_photo, score_hand

SUPPORTED = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".avif", ".tif", ".tiff", ".bmp", ".gif")
CSV_FIELDS = ["path", "hash", "status", "hand", "needs_person", "legal", "fan", "points", "rules",
              "error_kind", "error", "duplicate_of", "tiles", "confirmed", "detail"]
#: the columns of a CSV output made before the column confirmed: such a file is added to in its
#: own columns
CSV_FIELDS_BEFORE = [f for f in CSV_FIELDS if f != "confirmed"]
#: what a CSV row keeps in its last column, besides its own columns
CSV_DETAIL = ("image", "tiles", "groups", "needs_confirmation", "legal", "error", "options", "check", "notes", "score",
              "payments", "confirmed", "proposed", "situation", "given", "taken", "winning", "winning_guessed", "tops")


class BatchError(Exception):
    """A batch run that cannot start (bad paths, bad output file): exit 2 with one line."""


def _lock(path: str) -> int:
    """An open descriptor of ``path`` (made if missing) holding an exclusive lock on it, which the
    operating system lets go when this process ends however it ends. One batch run writes to an
    output at a time: another finds it locked and stops with one line."""
    if os.path.isdir(path):
        raise BatchError(f"{path}: is a folder; --out names the file the records go to")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise BatchError(f"{path}: cannot write the records there ({e.strerror})") from None
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # Windows
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        os.close(fd)
        raise BatchError(f"{path}: another mjcam batch is writing to it; let it finish, "
                         "or give this run another --out") from None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # (closing the descriptor lets the lock go)


def current(records: list[dict]) -> list[dict]:
    """Each photo's record that counts: its latest (a re-read or a person's confirmation
    supersedes the ones before), in the order the photos were first recorded."""
    latest: dict[str, dict] = {}
    for r in records:
        latest[r["path"]] = r  # (a key given again keeps its place)
    return list(latest.values())


def _record(value, where: str) -> dict:
    """A record read back from an output: a JSON object with a path and a status, or BatchError."""
    if not isinstance(value, dict) or not isinstance(value.get("path"), str) or not isinstance(value.get("status"), str):
        raise BatchError(f"{where}: not a mjcam batch record; give --out a new file")
    return value


# ---------------------------------------------------------------- finding and hashing photos

def find_photos(paths: list[str]) -> list[str]:
    out, seen = [], set()
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    if name.lower().endswith(SUPPORTED):
                        out.append(os.path.join(root, name))
        elif os.path.exists(p):
            out.append(p)
        else:
            raise BatchError(f"{p}: no such file or folder")
    return [p for p in out if not (p in seen or seen.add(p))]


def refusal(path: str, paths: list[str]) -> dict | None:
    """The error record of a photo batch does not open, or None: a link found in a folder that
    leads out of it (named directly, a link is followed), anything but a regular file (a pipe or
    a device would wait for ever or never end), a file over the size a photo may take."""
    from mjcam.vision.io import MAX_BYTES

    def error(kind: str, message: str) -> dict:
        return {"path": path, "hash": None, "status": "error", "needs_person": True,
                "error": {"kind": kind, "message": f"{path}: {message}"}}

    folder = next((f for f in paths if os.path.isdir(f) and path.startswith(os.path.join(f, ""))), None)
    if folder is not None and os.path.islink(path):
        target, inside = os.path.realpath(path), os.path.realpath(folder)
        if os.path.commonpath([target, inside]) != inside:
            return error("outside", f"a link to {target}, outside {folder}: not followed")
    try:
        st = os.stat(path)
    except OSError as e:
        return error("unreadable", f"cannot be looked at ({e.strerror or e})")
    if not stat.S_ISREG(st.st_mode):
        return error("not-a-file", "not a file but a pipe, a device or a socket")
    if st.st_size > MAX_BYTES:
        return error("too-large", f"{st.st_size / 2 ** 20:.0f} MB, over the {MAX_BYTES // 2 ** 20} MB a photo may take")
    return None


def content_hash(path: str) -> str | None:
    h = hashlib.sha256()
    try:  # opened without waiting (a pipe put in its place would), and read only if a regular file
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


# ---------------------------------------------------------------- the work on one photo

@dataclass(frozen=True)
class Options:
    rules: str = "hk-old-style"
    house: tuple = ()  # (key, value) pairs of house rules, as mjcam.service.score_hand takes them
    flags: WinFlags = WinFlags()

    def to_json(self) -> dict:
        """The options as a record keeps them: a later run adds to the same output only under the
        same (a config file by its full path and its content's digest)."""
        house = dict(self.house)
        if isinstance(house.get("config"), str) and os.path.isfile(house["config"]):
            house["config"] = os.path.abspath(house["config"])
            with open(house["config"], "rb") as fh:
                house["config_sha256"] = hashlib.sha256(fh.read()).hexdigest()
        return {"rules": self.rules, "house": house, "situation": self.flags.situation()}


def _filled(options: dict) -> dict:
    """A record's options with the situation complete: a condition the record predates holds its
    default."""
    return {**options, "situation": {**WinFlags().situation(), **(options.get("situation") or {})}}


def _same_options(was: dict, now: dict) -> bool:
    """Whether a record's options are these (:func:`_filled`)."""
    return _filled(was) == _filled(now)


def _differences(was: dict, now: dict) -> str:
    """``seat S there, E here; min_fan 5 there, none here``: where two records' options differ
    (:func:`_filled`: a condition a record predates is no difference)."""
    def flat(d: dict) -> dict:
        d = _filled(d)
        return {"rules": d.get("rules"), **(d.get("house") or {}), **d["situation"]}

    def said(v) -> str:
        return "none" if v is None else "yes" if v is True else "no" if v is False else str(v)

    a, b = flat(was), flat(now)
    return "; ".join(f"{k} {said(a.get(k))} there, {said(b.get(k))} here" for k in sorted(a.keys() | b.keys())
                     if a.get(k) != b.get(k))


@dataclass(frozen=True)
class Plan:
    """What a person said of one photo: the situation it is scored under (``flags``; as a person
    wrote it, ``given``, None where the command line's options stand) and their ``hand`` (None:
    the reader's; "": the photo shows no winning hand)."""

    flags: WinFlags
    given: object = None  # mjcam.sheets.Situation
    hand: str | None = None


def situated(base: WinFlags, given, seat_of=None) -> WinFlags:
    """``base`` (the command line's situation) with a photo's own winner, discarder and winning
    conditions (:class:`mjcam.sheets.Situation`); ``seat_of(who)``: the seat of a winner or
    discarder given as a player's name (default: the value as it is, a seat)."""
    from dataclasses import replace

    from mjcam.service import CONDITIONS

    if given is None:
        return base
    seat = seat_of or (lambda who: who)
    return replace(base, seat=seat(given.winner), discarder=None if given.discarder is None else seat(given.discarder),
                   responsible=None, **{c: c in given.flags for c in CONDITIONS})


def process(path: str, digest: str | None, options: Options, plan: Plan | None = None) -> dict:
    """One photo's record (never raises for a bad photo: the error is the record)."""
    from mjcam.night import photo_time
    from mjcam.vision.io import ImageError

    base = {"path": path, "hash": digest, "taken": photo_time(path), "options": options.to_json()}
    try:
        reading = read_photo(path)
    except ImageError as e:
        failed = {**base, "status": "error", "needs_person": True, "error": {"kind": e.kind, "message": str(e)}}
        return rescore(failed, options, plan) if plan is not None and plan.hand is not None else failed
    except Exception as e:  # a fault of ours must not stop the run: it is recorded and counted
        return {**base, "status": "error", "needs_person": True,
                "error": {"kind": "internal", "message": f"{type(e).__name__}: {e}"}}
    return {**base, **_scored(reading, options, plan)}


def rescore(record: dict, options: Options, plan: Plan | None) -> dict:
    """``record`` scored again from the reading it keeps (no photo is read): under ``plan``'s
    situation, from the person's hand where it gives one. A photo that could not be read is
    scored from the person's hand alone."""
    from mjcam.service import Reading
    from mjcam.vision.pipeline import Recognition

    keep = {k: record[k] for k in ("path", "hash", "taken") if k in record}
    if record.get("status") == "error":
        if plan is None or plan.hand is None:
            return {**record, "options": options.to_json()}
        rec = Recognition(record["path"], 0, 0, [], [], None, [])
    else:  # (a confirmed record keeps the reader's own hand as proposed)
        rec = Recognition.from_json({**record, "hand": record.get("proposed")} if record.get("confirmed") else record)
    return {**keep, "options": options.to_json(), **_scored(Reading(None, rec), options, plan)}


def _scored(reading, options: Options, plan: Plan | None = None) -> dict:
    """The record of a photo read: the reading, its score, and whether a person is needed; with
    a person's hand (``plan.hand``), that hand scored and the record ``confirmed``."""
    rec, house = reading.recognition, dict(options.house)
    flags = plan.flags if plan is not None else options.flags
    person = plan.hand if plan is not None else None
    d = rec.to_json()
    record = {"image": {"width": rec.width, "height": rec.height}, "tiles": d["tiles"],
              "groups": d["groups"], "hand": rec.hand, "needs_confirmation": rec.needs_confirmation,
              "notes": rec.notes, "winning": rec.winning, "winning_guessed": rec.winning_guessed, "tops": rec.tops,
              "legal": None, "score": None, "payments": None, "error": None, "confirmed": person is not None,
              "situation": flags.situation(),
              "given": None if plan is None or plan.given is None else plan.given.to_json()}
    if person is not None:
        record["proposed"], record["hand"] = rec.hand, person or None
    if record["hand"]:
        try:
            result = score_hand(record["hand"] if person else reading.hand, options.rules, flags, house)
            record["score"] = result.to_json()
            record["legal"] = result.legal
            record["payments"] = record["score"]["payments"]
        except NotationError as e:  # the hand read cannot be scored as it stands (say, not 14 tiles): its words
            record["error"] = {"kind": "score", "message": str(e)}
        except Exception as e:  # noqa: BLE001  (recorded, not fatal)
            record["error"] = {"kind": "score", "message": f"{type(e).__name__}: {e}"}
    record["status"] = ("not-a-win" if person == "" else "no-hand" if not record["hand"] else
                        "scored" if record["legal"] else "not-a-win")
    if person is not None:  # the person's hand: nothing left for a person to check
        record["check"], record["needs_person"] = [], False
        return record
    # scored without a person only where no likely misreading would be paid differently (vision.trust)
    verdict = judge(rec, (options.rules,), flags, house)
    record["check"] = [d.message for d in verdict.doubts]
    record["needs_person"] = not verdict.auto
    return record


_options: Options | None = None


def _init(options: Options) -> None:
    global _options
    _options = options
    # the worker processes share the cores: one thread per model session each, unless set
    os.environ.setdefault("MJCAM_THREADS", "1")


def _planned(path: str, digest: str | None, plan: Plan | None, options: Options) -> dict:
    return process(path, digest, options, plan)


def _work(job: tuple) -> dict:
    return process(job[0], job[1], _options, job[2])


# ---------------------------------------------------------------- outputs

class _LineOut:
    """Append-only text output of whole lines, each flushed and synced; locked while open."""

    def __init__(self, path: str):
        self.path = path
        self._held = _lock(path)
        try:
            self.records()  # what is there is checked before anything is written: a foreign file stays as it is
            self._cut_torn_tail()
            self.fh = open(path, "a", encoding="utf-8", newline="")
        except OSError as e:
            _unlock(self._held)
            raise BatchError(f"{path}: cannot write the records there ({e.strerror})") from None
        except BaseException:
            _unlock(self._held)
            raise

    def _cut_torn_tail(self) -> None:
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                keep = data.rfind(b"\n") + 1
                if not data[:keep].strip() and not self._torn_record(data[keep:]):
                    raise BatchError(f"{self.path}: not a mjcam batch output; give --out a new file")
                fh.truncate(keep)

    def _torn_record(self, tail: bytes) -> bool:
        """Whether ``tail``, all there is of the file, is the beginning of what this output writes."""
        raise NotImplementedError

    def _append(self, text: str) -> None:
        self.fh.write(text)
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()
        _unlock(self._held)
        self._held = None


class JsonlOut(_LineOut):
    def _torn_record(self, tail: bytes) -> bool:
        return tail.startswith(b'{"path": ')

    def records(self) -> list[dict]:
        """The records of the whole lines (a torn last line is cut off before anything is written)."""
        out = []
        with open(self.path, "rb") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip() and line.endswith(b"\n"):
                    try:
                        value = json.loads(line.decode("utf-8"))
                    except (ValueError, RecursionError):  # (not UTF-8 is a ValueError too)
                        value = None
                    out.append(_record(value, f"{self.path}:{n}"))
        return out

    def write(self, record: dict) -> None:
        self._append(json.dumps(record, ensure_ascii=False) + "\n")


class CsvOut(_LineOut):
    def __init__(self, path: str):
        self.fields = CSV_FIELDS
        super().__init__(path)
        if os.path.getsize(path) == 0:  # new, or only a torn header was there
            self.fields = CSV_FIELDS
            self._append(",".join(CSV_FIELDS) + "\n")

    def _torn_record(self, tail: bytes) -> bool:
        return ",".join(CSV_FIELDS).encode().startswith(tail)  # a header cut short

    def records(self) -> list[dict]:
        from mjcam.csvcell import uncell

        foreign = f"{self.path}: not a mjcam batch CSV; give --out a new file"
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
            whole = data[:data.rfind(b"\n") + 1].decode("utf-8")  # (a torn last row is cut off)
            reader = csv.DictReader(io.StringIO(whole, newline=""))
            if reader.fieldnames is not None and list(reader.fieldnames) not in (CSV_FIELDS, CSV_FIELDS_BEFORE):
                raise BatchError(foreign)  # (a header alone is enough to tell)
            if reader.fieldnames is not None:
                self.fields = list(reader.fieldnames)
            rows = [{k: uncell(v or "") for k, v in r.items() if k is not None} for r in reader]
        except (UnicodeDecodeError, csv.Error):
            raise BatchError(foreign) from None
        out = []
        for n, r in enumerate(rows, 2):
            try:
                detail = json.loads(r["detail"] or "{}")
            except (ValueError, RecursionError):
                detail = None
            if not isinstance(detail, dict):
                raise BatchError(f"{self.path}:{n}: not a mjcam batch record; give --out a new file")
            rec = {"path": r["path"], "hash": r["hash"] or None, "status": r["status"], "hand": r["hand"] or None,
                   "needs_person": r["needs_person"] == "1", "duplicate_of": r["duplicate_of"] or None}
            rec.update(detail)
            out.append(_record(rec, f"{self.path}:{n}"))
        return out

    def write(self, record: dict) -> None:
        sc = record.get("score") or {}
        err = record.get("error") or {}
        row = {"path": record["path"], "hash": record.get("hash") or "", "status": record["status"],
               "hand": record.get("hand") or "", "needs_person": int(bool(record.get("needs_person"))),
               "legal": "" if record.get("legal") is None else int(record["legal"]),
               "fan": sc.get("fan", ""), "points": sc.get("points", ""), "rules": sc.get("rules", ""),
               "error_kind": err.get("kind", ""), "error": err.get("message", ""),
               "duplicate_of": record.get("duplicate_of") or "",
               "tiles": " ".join(f"{t['code']}:{t['confidence']:.2f}" for t in record.get("tiles", [])),
               "confirmed": int(bool(record.get("confirmed"))),
               "detail": json.dumps({k: record[k] for k in CSV_DETAIL if k in record}, ensure_ascii=False)}
        from mjcam.csvcell import cell

        buf = io.StringIO()  # every text cell as text: a path or an error starting with = runs nowhere
        csv.DictWriter(buf, self.fields, lineterminator="\n", extrasaction="ignore").writerow(
            {k: cell(v) for k, v in row.items()})
        self._append(buf.getvalue())


class SqliteOut:
    """One row per photo; each record its own transaction (WAL journal)."""

    SCHEMA = """CREATE TABLE IF NOT EXISTS photos (
        id INTEGER PRIMARY KEY, path TEXT NOT NULL, hash TEXT, status TEXT NOT NULL, hand TEXT,
        needs_person INTEGER NOT NULL, legal INTEGER, fan INTEGER, points INTEGER, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS photos_hash ON photos(hash);
        CREATE VIEW IF NOT EXISTS current_photos AS SELECT * FROM photos
            WHERE id IN (SELECT MAX(id) FROM photos GROUP BY path);"""

    def __init__(self, path: str):
        self.path = path
        self._held = _lock(path)
        try:
            self.db = sqlite3.connect(path, isolation_level=None)
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(photos)")}
            if columns and not {"path", "hash", "status", "record"} <= columns:  # looked at before any change
                self.close()
                raise BatchError(f"{path}: not a mjcam batch database (its photos table is another's); "
                                 "give --out a new file")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(self.SCHEMA)
        except sqlite3.DatabaseError as e:
            self.close()
            raise BatchError(f"{path}: not a usable SQLite file ({e})") from None

    def records(self) -> list[dict]:
        out = []
        for n, (text,) in enumerate(self.db.execute("SELECT record FROM photos ORDER BY id"), 1):
            try:
                value = json.loads(text)
            except (TypeError, ValueError, RecursionError):
                value = None
            out.append(_record(value, f"{self.path}: row {n}"))
        return out

    def write(self, record: dict) -> None:
        sc = record.get("score") or {}
        legal = record.get("legal")
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO photos (path, hash, status, hand, needs_person, legal, fan, points, record) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (record["path"], record.get("hash"), record["status"], record.get("hand"),
                             int(bool(record.get("needs_person"))), None if legal is None else int(legal),
                             sc.get("fan"), sc.get("points"), json.dumps(record, ensure_ascii=False)))

    def close(self) -> None:
        if getattr(self, "db", None) is not None:
            self.db.close()
        _unlock(self._held)
        self._held = None


def open_output(path: str):
    low = path.lower()
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise BatchError(f"{path}: no such folder {folder}")
    if os.path.isdir(path):
        raise BatchError(f"{path}: is a folder; --out names the file the records go to")
    if low.endswith(".jsonl"):
        return JsonlOut(path)
    if low.endswith(".csv"):
        return CsvOut(path)
    if low.endswith((".sqlite", ".sqlite3", ".db")):
        return SqliteOut(path)
    raise BatchError(f"{path}: --out must end in .jsonl, .csv or .sqlite")


def reason(record: dict) -> str | None:
    """Why a photo's record is no paying hand, in a person's words; None where it is one.

    >>> reason({"path": "a.jpg", "status": "error", "error": {"message": "a.jpg: empty file"}})
    'empty file'
    >>> reason({"status": "not-a-win", "confirmed": True, "hand": "123m ...",
    ...         "score": {"reason": "below the minimum: 3 fan needed, the hand has 1"}})
    "the person's hand is not a paying win (below the minimum: 3 fan needed, the hand has 1)"
    >>> reason({"status": "not-a-win", "confirmed": True, "hand": None})
    'a person said the photo shows no winning hand'
    """
    status, error = record.get("status"), record.get("error") or {}
    if status == "error":
        message = error.get("message", "") or "could not be read"
        path = record.get("path") or ""
        return message.removeprefix(path + ": ") if path else message
    if status == "no-hand":
        return "the tiles read make no complete hand"
    if status != "not-a-win":
        return None
    person = bool(record.get("confirmed"))
    if person and not record.get("hand"):
        return "a person said the photo shows no winning hand"
    whose = "the person's hand" if person else "the hand read"
    if error.get("message"):
        return f"{whose} cannot be scored as it stands ({error['message']})"
    why = (record.get("score") or {}).get("reason")
    return f"{whose} is not a paying win" + (f" ({why})" if why else "")


def _failure_line(record: dict) -> str:
    """A failed photo's path and what went wrong, the path once (most messages start with it).

    >>> _failure_line({"path": "a/b.jpg", "error": {"message": "a/b.jpg: empty file"}})
    'a/b.jpg: empty file'
    >>> _failure_line({"path": "a/b.jpg", "error": {"message": "out of memory"}})
    'a/b.jpg: out of memory'
    """
    message = (record.get("error") or {}).get("message", "")
    return message if message.startswith(record["path"] + ":") else f"{record['path']}: {message}"


# ---------------------------------------------------------------- progress

class Progress:
    """A bar with rate and time left on a terminal; plain lines otherwise."""

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.t0 = total, 0, time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def step(self, record: dict) -> None:
        self.done += 1
        dt = time.monotonic() - self.t0
        rate = self.done / dt if dt > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        if self.tty:
            width = 30
            fill = int(width * self.done / max(1, self.total))
            print(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} "
                  f"{rate * 3600:,.0f} photos/h, {left:,.0f} s left ", end="", file=self.stream, flush=True)
            if self.done == self.total:
                print(file=self.stream)
        else:
            person = ", a person to check" if record.get("needs_person") and record["status"] != "error" else ""
            why = reason(record) if record.get("status") in ("error", "no-hand", "not-a-win") else None
            print(f"{self.done}/{self.total} {record['status']}{person}: {record['path']}" + (f": {why}" if why else ""),
                  file=self.stream, flush=True)


# ---------------------------------------------------------------- the run

@dataclass
class Summary:
    found: int = 0
    skipped: int = 0  # already recorded by an earlier run
    read: int = 0
    scored: int = 0
    needs_person: int = 0
    auto: int = 0  # scored without a person
    failed: int = 0
    duplicates: int = 0
    confirmed: int = 0  # scored from a person's hand
    rescored: int = 0  # already recorded, scored again from their reading under a new row
    unused: list = field(default_factory=list)  # a line for each row of the CSV files that names no photo
    unpaid: list = field(default_factory=list)  # a line for each person's hand that is no paying win
    all_failed: bool = False  # every photo given is, as recorded now, one that could not be read

    def line(self) -> str:
        share = f" ({self.auto / self.read:.0%} of those read)" if self.read else ""
        photos = f"{self.found} photo{'' if self.found == 1 else 's'}"
        again = f", {self.rescored} scored again from their new row" if self.rescored else ""
        unpaid = f" ({len(self.unpaid)} of them no paying win)" if self.unpaid else ""
        person = f", {self.confirmed} from a person's hand{unpaid}" if self.confirmed else ""
        return (f"{photos}: {self.skipped} already recorded, {self.read} read, {self.auto} scored "
                f"without a person{share}, {self.needs_person} need a person, {self.failed} failed, "
                f"{self.duplicates} duplicates{again}{person}")


def _results(jobs, options: Options, workers: int, dask: str | None):
    """Records as the photos finish, whichever runs them."""
    if dask:
        from dask.distributed import Client, LocalCluster, as_completed

        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None) if dask == "local" else None
        try:
            client = Client(cluster if cluster else dask)
        except (OSError, ValueError) as e:
            raise BatchError(f"cannot reach the Dask scheduler {dask}: {e}") from None
        try:
            futures = client.map(_planned, [j[0] for j in jobs], [j[1] for j in jobs], [j[2] for j in jobs],
                                 options=options, pure=False)
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            client.close()
            if cluster:
                cluster.close()
    elif workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=_init, initargs=(options,)) as pool:
            yield from pool.imap_unordered(_work, jobs)
    else:
        for path, digest, plan in jobs:
            yield process(path, digest, options, plan)


class NoPhotos(BatchError):
    """The paths given hold no photo: exit 2 with one line."""


def plans(photos: list[str], options: Options, situations=None, corrections=None,
          players: tuple[str, ...] = ()) -> tuple[dict[str, Plan], list[str]]:
    """``{path: Plan}`` for the photos that the situations or corrections file (a
    :class:`mjcam.sheets.Sheet`) has a row for (a correction's situation before a situation's),
    and a line for each row that names no photo. A winner or discarder given as one of
    ``players`` is placed as the game's first deal seats them (the game moves them on)."""
    from mjcam.scoring import ContextError, WinContext

    by_situation, unused = situations.match(photos) if situations is not None else ({}, [])
    by_person, more = corrections.match(photos) if corrections is not None else ({}, [])

    def seat_of(who: str) -> str:
        return SEATS[players.index(who)] if who in players else who

    out = {}
    for p in photos:
        s, c = by_situation.get(p), by_person.get(p)
        row = c if c is not None and c.situation is not None else s
        given = row.situation if row is not None else None
        if given is None and c is None:
            continue
        flags = situated(options.flags, given, seat_of)
        try:
            WinContext(**flags.situation())
        except ContextError as e:
            sheet = corrections if row is c else situations
            raise BatchError(f"{sheet.path}:{row.line}: {e}") from None
        out[p] = Plan(flags, given, None if c is None else c.hand)
    return out, unused + more


def _differs(record: dict, plan: Plan) -> bool:
    """Whether a photo's record was made otherwise than its row now says."""
    from mjcam.sheets import Situation

    if plan.hand is not None and not (record.get("confirmed") and (record.get("hand") or "") == plan.hand):
        return True
    return plan.given is not None and Situation.from_json(record.get("given")) != plan.given


def _count(summary: Summary, record: dict) -> None:
    """A photo read and recorded, counted in the ``summary``."""
    summary.read += record["status"] != "error"
    summary.failed += record["status"] == "error"
    summary.scored += record["status"] == "scored"
    summary.auto += record["status"] == "scored" and not record.get("needs_person")
    summary.needs_person += bool(record.get("needs_person")) and record["status"] != "error"
    _confirmed(summary, record)


def _confirmed(summary: Summary, record: dict) -> None:
    """A person's hand, counted; a line kept where it is no paying win (so it never leaves the
    game unsaid)."""
    if record.get("confirmed"):
        summary.confirmed += 1
        if record["status"] != "scored":
            summary.unpaid.append(f"{record['path']}: {reason(record)}")


def _jobs(photos: list[str], paths: list[str], planned: dict, records: list[dict], output, options: Options,
          summary: Summary) -> list[tuple]:
    """The photos to read, ``(path, hash, plan)`` each. Those never to be opened, those recorded
    already (scored again from their record where their row now says otherwise) and second copies
    of a photo are recorded here and counted in ``summary``."""
    done = {r.get("hash") for r in records if r.get("hash")}
    # a file that could not be read has no hash: it is known by its path, and recorded once
    unread = {r["path"] for r in records if not r.get("hash") and r["status"] == "error"}
    latest = {r["path"]: r for r in current(records)}
    jobs, first = [], {}
    for p in photos:
        refused = refusal(p, paths)
        if refused is not None:  # never opened; recorded once, as a file that cannot be read
            if p in unread:
                summary.skipped += 1
            else:
                output.write(refused)
                summary.failed += 1
            continue
        digest = content_hash(p)
        plan = planned.get(p)
        if (digest and digest in done) or (digest is None and p in unread):
            was = latest.get(p)
            if plan is not None and was is not None and was.get("hash") == digest and _differs(was, plan):
                if was.get("confirmed") and plan.hand is None:  # a new situation keeps the person's hand
                    plan = Plan(plan.flags, plan.given, was.get("hand") or "")
                record = rescore(was, options, plan)
                output.write(record)
                summary.rescored += 1
                _confirmed(summary, record)
            else:
                summary.skipped += 1
            continue
        if digest and digest in first:
            output.write({"path": p, "hash": digest, "status": "duplicate", "duplicate_of": first[digest],
                          "needs_person": False})
            summary.duplicates += 1
            continue
        if digest:
            first[digest] = p
        jobs.append((p, digest, plan))
    return jobs


def run(paths: list[str], out: str, options: Options, workers: int = 1, dask: str | None = None,
        progress=None, situations=None, corrections=None, players: tuple[str, ...] = ()) -> Summary:
    """Read and score the photos at ``paths`` into the output ``out``: each photo under its row
    of ``situations`` or ``corrections`` (:class:`mjcam.sheets.Sheet`) where it has one, else
    under ``options``. A photo already recorded is not read again; where its row says other than
    its record, it is scored again from the reading the record keeps, and the new record
    supersedes the old (:func:`current`). NoPhotos where the paths hold no photo."""
    photos = find_photos(paths)
    if not photos:
        raise NoPhotos(f"no photos in {', '.join(paths)} (batch reads {' '.join(SUPPORTED)} files)")
    planned, unused = plans(photos, options, situations, corrections, players)
    output = open_output(out)
    try:
        records = output.records()
        mine = options.to_json()
        other = [r["options"] for r in records if isinstance(r.get("options"), dict)
                 and not _same_options(r["options"], mine)]
        if other:  # skipping them would leave a file scored under two sets of rules
            raise BatchError(f"{out} holds {len(other)} record(s) made with other options ({_differences(other[0], mine)}): "
                             "give another --out, or the options those were made with")
        summary = Summary(found=len(photos), unused=unused)
        jobs = _jobs(photos, paths, planned, records, output, options, summary)
        bar = progress if progress is not None else Progress(len(jobs))
        for record in _results(jobs, options, workers, dask):
            output.write(record)
            _count(summary, record)
            bar.step(record)
        now = {r["path"]: r["status"] for r in current(output.records())}
        summary.all_failed = all(now.get(p) == "error" for p in photos)
    finally:
        output.close()
    return summary


# ---------------------------------------------------------------- the review page

def _thumbnail(record: dict, width: int = 560) -> str | None:
    """The annotated photo as a data: URL, or None when it can no longer be read."""
    import cv2

    from mjcam.vision.annotate import annotate
    from mjcam.vision.io import ImageError, load_photo
    from mjcam.vision.pipeline import Recognition

    try:
        image, _ = load_photo(record["path"], max_side=max(width, 800))
    except ImageError:
        return None
    img = annotate(image, Recognition.from_json(record))
    s = width / img.shape[1]
    if s < 1:
        img = cv2.resize(img, (width, max(1, round(img.shape[0] * s))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 80])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else None


def write_review(out: str, review: str) -> int:
    """A self-contained HTML page of every recorded photo that needs a person. Returns how many."""
    from mjcam.vision.pipeline import Recognition

    output = open_output(out)
    try:
        records = output.records()
    finally:
        output.close()
    records = current(records)
    doubtful = [r for r in records if r.get("needs_person") and r["status"] != "error"]
    failed = [r for r in records if r["status"] == "error"]
    parts = ["<!doctype html><meta charset='utf-8'><title>mjcam: photos to check</title>",
             "<style>body{font:15px system-ui,sans-serif;margin:1.5em;background:#f6f5f2}"
             "figure{display:inline-block;vertical-align:top;margin:.6em;padding:.6em;background:#fff;"
             "border-radius:8px;box-shadow:0 1px 3px #0003;max-width:580px}img{max-width:100%}"
             "code{font-size:14px}.why{color:#a00}</style>",
             f"<h1>Photos to check ({len(doubtful)})</h1>"]
    for r in doubtful:
        thumb = _thumbnail(r)
        rec = Recognition.from_json(r)
        # what a likely misreading would change (vision.trust), else the tiles read least surely
        why = list(r.get("check") or []) if r["status"] == "scored" else []
        why = why or [f"check {d}" for d in rec.doubts()]
        if r["status"] == "no-hand":
            why.append("the tiles read make no complete hand")
        elif r["status"] == "not-a-win" and r.get("error"):  # the hand read cannot be scored as it stands
            why.append(f"the proposed hand cannot be scored: {r['error'].get('message', '')}")
        elif r["status"] == "not-a-win":
            reason = (r.get("score") or {}).get("reason")
            why.append("the proposed hand is not a legal win under the rules" + (f": {reason}" if reason else ""))
        why += rec.notes  # what the recogniser noticed: a guessed winning tile, a tile short of a hand ...
        img = f"<img src='{thumb}' alt='annotated photo'>" if thumb else "<p class='why'>photo no longer readable</p>"
        items = "".join(f"<li>{html.escape(w)}</li>" for w in why)
        parts.append(f"<figure>{img}<figcaption><b>{html.escape(r['path'])}</b><br>proposed: "
                     f"<code>{html.escape(r.get('hand') or '-')}</code><ul class='why'>{items}</ul></figcaption></figure>")
    if failed:
        parts.append(f"<h2>Could not be read ({len(failed)})</h2><ul>")
        parts += [f"<li>{html.escape(_failure_line(r))}</li>" for r in failed]
        parts.append("</ul>")
    with open(review, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    return len(doubtful)
