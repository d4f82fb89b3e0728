"""The ``mjcam`` command line. Exit status: 0 done, 1 understood but not a legal win, 2 usage,
parse or file error (one line on stderr)."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from dataclasses import fields

from mjcam.scoring import (PATTERNS, PRESET_IDS, ConfigError, ContextError, NotationError, ScoreResult,
                     WinContext, format_hand, load_preset, parse_hand, waits)
from mjcam.scoring.engine import resolve_preset
from mjcam.scoring.notation import format_tiles
from mjcam.scoring.payments import SCHEMES
from mjcam.scoring.tables import TABLES
from mjcam.scoring.tiles import SEATS
from mjcam.service import WinFlags, conditions_help, judge, read_photo, score_hand

SEAT_NAMES = {"E": "East", "S": "South", "W": "West", "N": "North"}


class UsageError(Exception):
    """Bad command line: exit 2 with one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (docs/reference.md, exit codes)
        raise UsageError(message)


def _seat(value: str) -> str:
    v = value.strip().upper()
    if v in ("1Z", "2Z", "3Z", "4Z"):
        v = SEATS[int(v[0]) - 1]
    if v not in SEATS:
        raise argparse.ArgumentTypeError(f"a seat is E, S, W or N, not {value!r}")
    return v


def _nonneg(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, not {value}")
    return n


def add_score_options(p: argparse.ArgumentParser, *, rules_all: bool = False, json_flag: bool = True) -> None:
    """The situation and house-rule options shared by score, waits (and photo)."""
    choices = PRESET_IDS + (("all",) if rules_all else ())
    p.add_argument("--rules", default="hk-old-style", choices=choices, metavar="ID",
                   help="rule preset: " + ", ".join(choices) + " (default hk-old-style)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--self-drawn", action="store_true", help="won on a tile from the wall (default)")
    how.add_argument("--discarder", type=_seat, metavar="SEAT", help="won on this seat's discard")
    p.add_argument("--seat", type=_seat, default="E", help="the winner's seat wind (default E)")
    p.add_argument("--round", type=_seat, default="E", help="the prevailing wind (default E)")
    p.add_argument("--dealer", type=_seat, default="E", help="the dealer's seat (default E)")
    p.add_argument("--no-flowers-in-play", action="store_true", help="bonus tiles are not used in this game")
    for name, text in conditions_help():  # --last-tile, --kong-replacement ...
        p.add_argument("--" + name.replace("_", "-"), action="store_true", help=text)
    p.add_argument("--responsible", type=_seat, metavar="SEAT", help="this seat pays for everyone (包)")
    p.add_argument("--min-fan", type=_nonneg, metavar="N", help="house minimum")
    p.add_argument("--cap", type=_nonneg, metavar="N", help="house cap on fan")
    p.add_argument("--table", choices=list(TABLES), metavar="NAME", help="fan->points table: " + ", ".join(TABLES))
    p.add_argument("--payment", choices=list(SCHEMES), metavar="NAME", help="payment scheme: " + ", ".join(SCHEMES))
    p.add_argument("--config", metavar="FILE.toml", help="house rules: any value of the preset")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print JSON")


def win_flags(a: argparse.Namespace) -> WinFlags:
    """How the hand was won, as the options of :func:`add_score_options` say."""
    given = {f.name: getattr(a, f.name) for f in fields(WinFlags) if f.name != "flowers_in_play"}
    return WinFlags(flowers_in_play=not a.no_flowers_in_play, **given)


def house_rules(a: argparse.Namespace) -> dict:
    return dict(config=a.config, min_fan=a.min_fan, cap=a.cap, table=a.table, payment=a.payment)


def check_options(ids, flags: WinFlags, house: dict) -> None:
    """Refuse house rules or a situation that no hand could be scored under (a missing config
    file, the winner as the discarder, ...) before any photo is read: ConfigError, ContextError."""
    WinContext(**flags.situation())
    given = {k: v for k, v in house.items() if v is not None}
    for rid in ids:
        resolve_preset(rid, **given)


# ---------------------------------------------------------------- text rendering

def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pad(s: str, n: int) -> str:
    return s + " " * max(0, n - _width(s))


def _how(r: ScoreResult) -> str:
    c = r.context
    how = "self-drawn" if c.self_drawn else f"on {SEAT_NAMES[c.discarder]}'s discard"
    return f"won {how} · seat {c.seat} · round {c.round} · dealer {c.dealer}"


def _reading(r: ScoreResult) -> str:
    arr = r.arrangement
    if arr is None:
        return "-"
    parts = []
    for g in arr.groups:
        if g.kind == "orphans":  # one of each terminal and honour, one of them twice: as the tiles are written
            parts.append(format_tiles(r.hand.concealed))
            continue
        t = format_tiles(g.tiles).replace(" ", "")
        parts.append(f"[{t}]" if g.melded else f"{{{t}}}" if g.kind == "kong" else t)
    win = r.hand.winning
    wait = f"   wait: {arr.wait} on {format_tiles([win])}" if win is not None else ""
    return " ".join(parts) + wait


def render_score(r: ScoreResult) -> str:
    preset = load_preset(r.rules)
    lines = [f"Hand      {format_hand(r.hand)}",
             f"Rules     {r.rules} ({preset.name}) · {_how(r)}",
             f"Reading   {_reading(r)}"]
    if r.patterns:
        lines.append("")
        w = max(_width(p.name + (f" ×{p.count}" if p.count > 1 else "")) for p in r.patterns) + 2
        for p in r.patterns:
            name = p.name + (f" ×{p.count}" if p.count > 1 else "")
            val = "limit" if p.limit else str(p.fan)
            lines.append(f"  {_pad(name, w)}{_pad(p.zh, 18)}{val:>5}")
        lines.append("  " + "-" * (w + 23))
        cap = f", capped from {r.raw_fan}" if r.raw_fan != r.fan and not r.limit else ""
        lim = " (limit hand)" if r.limit else ""
        lines.append(f"  {_pad('Total', w + 18)}{r.fan:>5} fan{cap}{lim}   minimum {r.min_fan}")
    for victim, by in r.suppressed:
        lines.append(f"  not counted: {PATTERNS[victim].name} ({PATTERNS[victim].zh}), inside {PATTERNS[by].name}")
    for note in r.notes:
        lines.append(f"  note: {note}")
    if r.hand.bonus and not any(p.startswith(("seat_flower", "seat_season", "all_flowers", "all_seasons", "all_bonus",
                                              "no_flowers", "seven_bonus"))
                                for p, _ in preset.active_patterns()):
        lines.append(f"  note: {r.rules} gives no fan for flowers or seasons: "
                     f"{format_tiles(r.hand.bonus)} score nothing here")
    lines.append("")
    if r.legal:
        lines.append(f"Points    {r.points} ({r.table} table, {r.payment} payment)")
        pays = " · ".join(f"{SEAT_NAMES[s]} {v:+d}" for s, v in r.payments.items())
        lines.append(f"Payments  {pays}")
    else:
        lines.append(f"Not a legal win: {r.reason}")
    return "\n".join(lines)


def render_all(results: list[ScoreResult]) -> str:
    head = f"{'rules':<19}{'legal':<7}{'fan':>5}{'raw':>5}{'points':>8}   " + "  ".join(f"{s:>6}" for s in SEATS)
    lines = [head, "-" * len(head)]
    for r in results:
        pays = "  ".join(f"{r.payments[s]:>+6d}" for s in SEATS)
        fan = "L" if r.limit else str(r.fan)
        lines.append(f"{r.rules:<19}{'yes' if r.legal else 'no':<7}{fan:>5}{r.raw_fan:>5}{r.points:>8}   {pays}")
    for r in results:
        pats = ", ".join(f"{p.name} {'L' if p.limit else p.fan}" for p in r.patterns) or "-"
        lines.append(f"\n{r.rules}: {pats}" + (f"\n  not legal: {r.reason}" if not r.legal else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- commands

def cmd_score(a: argparse.Namespace) -> int:
    hand = " ".join(a.hand)
    ids = PRESET_IDS if a.rules == "all" else (a.rules,)
    flags, house = win_flags(a), house_rules(a)
    results = [score_hand(hand, rid, flags, house) for rid in ids]
    if a.json:
        out = [r.to_json() for r in results]
        print(json.dumps(out if a.rules == "all" else out[0], ensure_ascii=False, indent=1))
    else:
        print(render_all(results) if a.rules == "all" else render_score(results[0]))
    return 0 if any(r.legal for r in results) else 1


def cmd_waits(a: argparse.Namespace) -> int:
    hand = parse_hand(" ".join(a.hand), waiting=True)
    found = waits(hand, a.rules, **house_rules(a), **win_flags(a).situation())
    if a.json:
        print(json.dumps([{"tile": w.tile, "discarder": w.discarder, "discard": w.discard.to_json(),
                           "self_drawn": w.self_drawn.to_json()} for w in found],
                         ensure_ascii=False, indent=1))
        return 0 if found else 1
    if not found:
        print(f"{format_hand(hand)}: not waiting, no tile completes this hand")
        return 1
    print(f"{format_hand(hand)} waits on {len(found)} tile{'' if len(found) == 1 else 's'} under {a.rules}:")
    print(f"{'tile':<6}{'on ' + found[0].discarder + ' discard':>22}{'self-drawn':>24}")

    def cell(r: ScoreResult) -> str:
        if not r.legal:
            return f"{r.fan} fan, no win"
        return f"{'limit' if r.limit else str(r.fan) + ' fan'} {r.points} pts +{r.payments[r.context.seat]}"

    for w in found:
        print(f"{w.tile:<6}{cell(w.discard):>22}{cell(w.self_drawn):>24}")
    return 0


def cmd_rules(a: argparse.Namespace) -> int:
    if a.explain and not a.id:
        raise UsageError("--explain needs a preset: mjcam rules ID --explain")
    if not a.id:
        rows = [load_preset(i) for i in PRESET_IDS]
        if a.json:
            print(json.dumps([{"id": p.id, "name": p.name, "seed": p.seed, "min_fan": p.min_fan,
                               "cap": p.cap, "table": p.table, "payment": p.payment} for p in rows],
                             ensure_ascii=False, indent=1))
            return 0
        for p in rows:
            print(f"{p.id:<19}{p.name}  [min {p.min_fan}, cap {p.cap or 'none'}, {p.table} table, {p.payment}]")
            print(f"{'':<19}from the rule book {p.seed}")
        return 0
    p = resolve_preset(a.id, config=a.config)
    pats = p.active_patterns()
    replaced = {pid: [b for b, _ in p.replaces.get(pid, ())] for pid, _ in pats}
    if a.json:
        print(json.dumps({"id": p.id, "name": p.name, "seed": p.seed, "min_fan": p.min_fan, "cap": p.cap,
                          "limit_fan": p.limit, "table": p.table, "payment": p.payment,
                          "dealer_doubling": p.dealer_doubling, "bonus_counts_for_min": p.bonus_counts_for_min,
                          "patterns": [{"id": pid, "name": PATTERNS[pid].name, "zh": PATTERNS[pid].zh,
                                        "fan": v, "suppresses": replaced[pid],
                                        "implies": [r.b for r in p.relations if r.a == pid and r.implied]}
                                       for pid, v in pats],
                          "settings": p.settings, "choices": p.choices}, ensure_ascii=False, indent=1))
        return 0
    if a.explain:
        from mjcam.scoring.explain import text

        print(text(p), end="")
        return 0
    print(f"{p.id}: {p.name}\nrule book: {p.seed}")
    print(f"minimum {p.min_fan} · cap {p.cap or 'none'} · limit = {p.limit} fan · table {p.table}: {TABLES[p.table]}")
    print(f"payment {p.payment}: {SCHEMES[p.payment][3]} · dealer doubling {'on' if p.dealer_doubling else 'off'}"
          f" · bonus fan count towards the minimum: {'yes' if p.bonus_counts_for_min else 'no'}\n")
    for pid, v in sorted(pats, key=lambda x: (x[1] == "limit", x[1] if x[1] != "limit" else 0)):
        sup = replaced[pid]
        extra = f"   (replaces {', '.join(sup)})" if sup else ""
        print(f"  {_pad(PATTERNS[pid].name, 32)}{_pad(PATTERNS[pid].zh, 18)}{str(v):>6}  {pid}{extra}")
    print("\nchoices where the rule book is silent or unclear:")
    for k, v in p.choices.items():
        print(f"  {k}: {v}")
    print(f"\nwhat each pattern means, implies and excludes, with the rule book's words: mjcam rules {p.id} --explain")
    return 0


CLASSIFY_SIDE = 4096


def cmd_classify(a: argparse.Namespace) -> int:
    from mjcam.vision.classify import ModelError
    from mjcam.vision.io import ImageError, load_photo
    from mjcam.vision.pipeline import default_recognizer

    rec = default_recognizer()
    results, failed = [], 0
    for path in a.images:
        try:
            # a picture of one tile needs no more than CLASSIFY_SIDE pixels a side (a phone's 12 MP
            # photo is read whole); a larger one is read from a smaller copy, boxes scaled back
            image, (full_w, _) = load_photo(path, CLASSIFY_SIDE)
            label, box = rec.read_one(image)
            if box is not None:
                box = tuple(v * full_w / image.shape[1] for v in box)
        except ImageError as e:
            print(f"mjcam: error: {e}", file=sys.stderr)
            results.append({"path": path, "error": str(e)})
            failed += 1
            continue
        except ModelError as e:
            raise UsageError(str(e)) from None
        results.append({"path": path, **label.to_json(), "needs_confirmation": label.low_confidence,
                        "box": None if box is None else [round(float(v), 1) for v in box]})
    if a.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
    else:
        for r in results:
            if "error" in r:
                continue
            alts = ", ".join(f"{x['code']} {x['confidence']:.2f}" for x in r["alternatives"])
            flag = "  ← check" if r["needs_confirmation"] else ""
            at = "" if r["box"] is None else "  [the tile at {:.0f},{:.0f} to {:.0f},{:.0f}]".format(*r["box"])
            print(f"{r['path']}: {r['code']} {r['confidence']:.2f}   (then {alts}){at}{flag}")
    return 2 if failed else 0


def _read_photo(path: str, annotate: str | None):
    """One photo read (:func:`mjcam.service.read_photo`); the annotated picture written when asked."""
    from mjcam.vision.classify import ModelError

    try:
        return read_photo(path, annotate=annotate)
    except ModelError as e:
        raise UsageError(str(e)) from None


def _annotate_path(out: str | None, photo: str, many: bool) -> str | None:
    """Where a photo's annotated picture goes: OUT itself for one photo, else OUT/<name>.annotated.jpg."""
    import os

    if out is None:
        return None
    if many or os.path.isdir(out):
        os.makedirs(out, exist_ok=True)
        return os.path.join(out, os.path.splitext(os.path.basename(photo))[0] + ".annotated.jpg")
    return out


def _describe(rec, out, doubts: bool = True) -> None:
    print(f"{rec.path}: {len(rec.tiles)} tiles  ({rec.width}x{rec.height})", file=out)
    print(f"  as laid out:   {rec.layout() or '-'}", file=out)
    print(f"  proposed hand: {rec.hand or '(none: the tiles read make no complete hand)'}", file=out)
    for d in rec.doubts() if doubts else ():
        print(f"  check {d}", file=out)
    for n in rec.notes:
        print(f"  note: {n}", file=out)


def cmd_recognize(a: argparse.Namespace) -> int:
    from mjcam.vision.io import ImageError

    results, failed = [], 0
    many = len(a.photos) > 1
    for path in a.photos:
        try:
            rec = _read_photo(path, _annotate_path(a.annotate, path, many)).recognition
        except ImageError as e:
            print(f"mjcam: error: {e}", file=sys.stderr)
            results.append({"image": {"path": path}, "error": str(e)})
            failed += 1
            continue
        results.append(rec)
    if a.json:
        out = [r if isinstance(r, dict) else r.to_json() for r in results]
        if many:
            print(json.dumps(out, ensure_ascii=False, indent=1))
        elif not failed:
            print(json.dumps(out[0], ensure_ascii=False, indent=1))
    else:
        for r in results:
            if not isinstance(r, dict):
                _describe(r, sys.stdout)
    return 2 if failed else 0


def _fault(e: NotationError, text: str) -> str:
    """What is wrong with a hand read from a photo, said of its tiles: no position in a text the
    person never typed."""
    if e.token and e.token.strip() != text.strip():
        return f"{e.reason} {e.token}"
    return e.reason.removesuffix(" in")


def _confirm(reading, a: argparse.Namespace, out):
    """The hand to score, as written and as a Hand: the proposal when accepted, or what the person
    types (asked again until it parses)."""
    rec = reading.recognition
    try:
        proposed = reading.hand
    except NotationError as e:  # tiles read that make no hand (a bonus tile read twice, a tile short)
        if a.yes:
            raise UsageError(f"{rec.path}: the hand read cannot be scored as it stands ({_fault(e, rec.hand)}); "
                             "run without --yes to correct it") from None
        print(f"  the hand read cannot be scored as it stands: {_fault(e, rec.hand)}", file=out)
        proposed = None
    if a.yes:
        if not rec.hand:
            raise UsageError(f"{rec.path}: no complete hand could be read; run without --yes to type it")
        return rec.hand, proposed
    while True:
        prompt = "Enter accepts the proposed hand, or type the hand: " if proposed else "Type the hand: "
        print(prompt, end="", file=out, flush=True)
        line = sys.stdin.readline()
        if not line:  # (the error starts a line of its own, not after the prompt)
            print(file=out, flush=True)
            raise UsageError("no answer on standard input (use --yes to accept the proposed hand)")
        line = line.strip()
        if not line:
            if proposed:
                return rec.hand, proposed
            print("  nothing to accept: type the hand in notation", file=out)
            continue
        try:
            return line, parse_hand(line)
        except NotationError as e:
            print(f"  {e}; try again", file=out)


def cmd_photo(a: argparse.Namespace) -> int:
    from mjcam.vision.io import ImageError
    from mjcam.vision.trust import UNSCORABLE

    out = sys.stderr if a.json else sys.stdout
    ids = PRESET_IDS if a.rules == "all" else (a.rules,)
    flags, house = win_flags(a), house_rules(a)
    check_options(ids, flags, house)  # an option no hand can be scored under: one line, no photo read
    try:
        reading = _read_photo(a.photo, a.annotate)
    except ImageError as e:
        raise UsageError(str(e)) from None
    rec = reading.recognition
    verdict = judge(rec, ids, flags, house)
    # the tiles to check are the verdict's own, but a hand refused whole (none written, no paying
    # win, unscorable) weighs no tile: then each unsure tile is listed as it was read
    _describe(rec, out, doubts=not verdict.auto and all(d.kind == "hand" for d in verdict.doubts))
    if verdict.auto:
        print("  sure: no likely misreading of the photo changes the score", file=out)
    try:  # a hand read that cannot be parsed is said once, with why, as it is confirmed (_confirm)
        reading.hand
        said_below = False
    except NotationError:
        said_below = True
    for d in verdict.doubts:
        if d.kind == "hand" and d.message == UNSCORABLE and said_below:
            continue  # said once, with why, as the hand is confirmed (_confirm)
        # a tile to check reads on from "check"; a fault of the whole hand is said as it is
        print(f"  check {d.message}" if d.kind != "hand" else f"  check the hand: {d.message}", file=out)
    text, hand = _confirm(reading, a, out)
    if a.yes and text and not verdict.auto:
        print("mjcam: scored as read with --yes; a person should check the reading above", file=sys.stderr)
    results = [score_hand(hand, rid, flags, house) for rid in ids]
    if a.json:
        sc = [r.to_json() for r in results]
        print(json.dumps({"recognition": rec.to_json(), "accepted": text == rec.hand, "hand": text,
                          "trust": verdict.to_json(), "score": sc if a.rules == "all" else sc[0]},
                         ensure_ascii=False, indent=1))
    else:
        print(render_all(results) if a.rules == "all" else render_score(results[0]))
    return 0 if any(r.legal for r in results) else 1


def _positive(value: str) -> int:
    n = _nonneg(value)
    if n < 1:
        raise argparse.ArgumentTypeError("expected a number >= 1")
    return n


def _port(value: str) -> int:
    n = _nonneg(value)
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, not {n}")
    return n


def cmd_batch(a: argparse.Namespace) -> int:
    from mjcam.batch import BatchError, Options, current, open_output, run, write_review
    from mjcam.expected import ExpectedError, compare, read_expected
    from mjcam.night import GameError, build, parse_players
    from mjcam.sheets import Sheet, SheetError

    house = {k: v for k, v in house_rules(a).items() if v is not None}
    flags = win_flags(a)
    check_options((a.rules,), flags, house)  # bad house rules or situation fail now, not once per photo
    options = Options(a.rules, tuple(house.items()), flags)
    if a.dask:  # a missing extra is one line, before any output file is made
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise UsageError("--dask needs Dask, which is an extra: pip install 'mjcam[dask]'") from None
    try:
        expected = read_expected(a.expected) if a.expected else None
        players = ()
        if a.game or a.ledger:
            if not (a.game and a.ledger):
                raise UsageError("--game and --ledger go together: the four players and the ledger the game goes to")
            if a.config:
                raise UsageError("a game keeps the house rules --min-fan, --cap, --table and --payment, not --config")
            players = parse_players(a.game)
        situations = Sheet.read(a.situations, "situations", players) if a.situations else None
        corrections = Sheet.read(a.corrections, "corrections", players) if a.corrections else None
    except (ExpectedError, SheetError, GameError) as e:
        raise UsageError(str(e)) from None
    try:
        summary = run(a.paths, a.out, options, workers=a.workers, dask=a.dask, situations=situations,
                      corrections=corrections, players=players)
        print(summary.line(), file=sys.stderr)
        for line in summary.unused:
            print(f"mjcam: note: {line}", file=sys.stderr)
        for line in summary.unpaid:  # a person's own hand is never left out unsaid
            print(f"mjcam: note: {line}", file=sys.stderr)
        if expected is not None:
            output = open_output(a.out)
            try:
                records = output.records()
            finally:
                output.close()
            for line in compare(current(records), expected, a.rules, house, flags).lines():
                print(line, file=sys.stderr)
        if a.review:
            n = write_review(a.out, a.review)
            print(f"review page: {a.review} ({n} photo{'' if n == 1 else 's'} to check)", file=sys.stderr)
        if players:
            for line in build(a.out, players, a.ledger).lines(a.ledger):
                print(line, file=sys.stderr)
    except (BatchError, GameError) as e:
        raise UsageError(str(e)) from None
    if summary.all_failed:  # each is recorded, but the run read nothing (docs/reference.md, exit codes)
        n = summary.found
        raise UsageError(f"none of the {n} photos could be read; {a.out} records why for each" if n > 1
                         else f"the photo could not be read; {a.out} records why")
    return 0


def cmd_serve(a: argparse.Namespace) -> int:
    import os
    import secrets

    try:
        import uvicorn  # noqa: F401  (imported here to say at once when it is missing)

        from mjcam.web.app import create_app
    except ImportError:
        raise UsageError("mjcam serve needs Starlette and uvicorn, which mjcam installs: pip install starlette uvicorn") from None
    db = os.path.abspath(os.path.expanduser(a.db))
    if not os.path.isdir(os.path.dirname(db)):
        os.makedirs(os.path.dirname(db), exist_ok=True)
    local = a.host in ("127.0.0.1", "localhost", "::1")
    pin = a.pin or (None if local and not a.read_pin else f"{secrets.randbelow(10 ** 6):06d}")
    if pin is not None:
        from mjcam.web.guard import normal_pin

        pin = normal_pin(pin)  # as the phone's keyboard will give it (full-width digits are digits)
        if not (4 <= len(pin) <= 64 and all("!" <= ch <= "~" for ch in pin)):
            raise UsageError("--pin must be 4 to 64 letters, digits or signs, with no spaces")
    hosts = list(a.allow_host or [])
    if not local:  # besides its addresses, the machine's own name on the network
        import socket

        name = socket.gethostname().lower()
        hosts += [name, name.split(".")[0] + ".local"]
    try:
        app = create_app(db, pin=pin, hosts=hosts, read_pin=a.read_pin)
    except Exception as e:  # sqlite3.DatabaseError and friends: a bad --db file
        raise UsageError(f"cannot open the game ledger {db}: {e}") from None
    from mjcam.web.server import listen, run

    try:
        sock = listen(a.host, a.port)
    except OSError as e:  # the port is taken, the address is not this machine's, ...
        raise UsageError(f"cannot listen on {a.host} port {a.port}: {e.strerror or e}") from None
    from mjcam.web.banner import banner

    for line in banner(a.host, a.port, pin, db, read_pin=a.read_pin):  # where a phone can open it, and a QR code
        print(line, file=sys.stderr)
    import logging

    handler = logging.StreamHandler(sys.stderr)  # wrong PINs and the like, as they happen
    handler.setFormatter(logging.Formatter("mjcam: %(message)s"))
    log = logging.getLogger("mjcam.serve")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    run(app, sock)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from mjcam import __version__

    ap = _Parser(prog="mjcam", description="Photograph a Hong Kong mahjong hand and score it.",
                 epilog="Run 'mjcam COMMAND --help' for a command's options. Example: "
                        "mjcam photo samples/hand-layout.jpg --yes --seat S")
    ap.add_argument("--version", action="version", version=f"mjcam {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in (_add_hand_commands, _add_photo_commands, _add_batch, _add_review, _add_serve, _add_rules):
        add(sub)
    return ap


def _add_hand_commands(sub) -> None:
    s = sub.add_parser("score", help="score a hand written in notation")
    s.add_argument("hand", nargs="+", help='the hand, e.g. "[123m] [RdRdRd] 456p 78p 55s +9p"')
    add_score_options(s, rules_all=True)
    s.set_defaults(func=cmd_score)
    w = sub.add_parser("waits", help="list the tiles that complete a 13-tile hand, with their scores")
    w.add_argument("hand", nargs="+", help="a 13-tile hand (melds marked), no winning tile")
    add_score_options(w)
    w.set_defaults(func=cmd_waits)


def _add_photo_commands(sub) -> None:
    c = sub.add_parser("classify", help="name the tile in each picture of a single tile")
    c.add_argument("images", nargs="+", metavar="IMAGE", help="pictures of one tile each (JPEG, PNG, HEIC, ...)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_classify)
    g = sub.add_parser("recognize", help="read the tiles and propose the hand in each photo")
    g.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of a hand (JPEG, PNG, HEIC, ...)")
    g.add_argument("--json", action="store_true", help="print JSON")
    g.add_argument("--annotate", metavar="OUT", help="write the photo with the reading drawn on it "
                   "(a file for one photo, a folder for several)")
    g.set_defaults(func=cmd_recognize)
    ph = sub.add_parser("photo", help="read a photo, confirm or correct the hand, and score it")
    ph.add_argument("photo", metavar="PHOTO", help="a photo of the winning hand (JPEG, PNG, HEIC, ...)")
    ph.add_argument("--yes", action="store_true", help="accept the proposed hand without asking")
    ph.add_argument("--annotate", metavar="OUT", help="write the photo with the reading drawn on it")
    add_score_options(ph, rules_all=True)
    ph.set_defaults(func=cmd_photo)


def _add_batch(sub) -> None:
    b = sub.add_parser("batch", help="read and score every photo in folders; resumable, parallel")
    b.add_argument("paths", nargs="+", metavar="PATH", help="photos or folders (walked recursively)")
    b.add_argument("--out", required=True, metavar="FILE", help="records go here: .jsonl, .csv or .sqlite")
    b.add_argument("--workers", type=_positive, default=1, metavar="N", help="local processes (default 1)")
    b.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler, or 'local' for a local cluster "
                   "of --workers processes (pip install 'mjcam[dask]')")
    b.add_argument("--review", metavar="FILE.html", help="write a page of the photos that need a person")
    b.add_argument("--expected", metavar="FILE", help="hands written down by a person (CSV photo,hand or JSON): "
                   "print how many hands scored without a person differ from them")
    b.add_argument("--situations", metavar="CSV", help="each photo's own winner, discarder and flags "
                   "(columns photo, winner, discarder, flags); photos not listed are scored with the options")
    b.add_argument("--corrections", metavar="CSV", help="hands a person gave (columns photo, hand): those photos "
                   "are scored from them")
    b.add_argument("--game", metavar="NAMES", help='the four players, East of the first deal first ("Ann,Bob,Cat,Dan"): '
                   "record the scored hands, in the order they were taken, as one game in --ledger")
    b.add_argument("--ledger", metavar="FILE.sqlite", help="the table app's game ledger the --game goes to "
                   "(mjcam serve --db FILE.sqlite shows it)")
    add_score_options(b, json_flag=False)
    b.set_defaults(func=cmd_batch)


def cmd_review(a: argparse.Namespace) -> int:
    from mjcam.web.review import ReviewError, serve_review

    try:
        return serve_review(a)
    except ReviewError as e:
        raise UsageError(str(e)) from None


def _add_review(sub) -> None:
    r = sub.add_parser("review", help="a page to confirm or correct the photos of a batch output that need a person")
    r.add_argument("results", metavar="RESULTS", help="the output of mjcam batch (.jsonl, .csv or .sqlite)")
    r.add_argument("--corrections", metavar="CSV", help="where the confirmed hands are kept for later batch runs "
                   "(default: RESULTS' name with -corrections.csv)")
    r.add_argument("--game", metavar="NAMES", help="the four players of the game built with batch --game")
    r.add_argument("--ledger", metavar="FILE.sqlite", help="the ledger of that game: confirmed hands join it in their place")
    r.add_argument("--port", type=_port, default=8001, help="port of the page on this computer (default 8001)")
    r.add_argument("--no-open", action="store_true", help="print the page's address without opening a browser")
    r.set_defaults(func=cmd_review)


def _add_serve(sub) -> None:
    sv = sub.add_parser("serve", help="the table web app: photograph, check and record hands, keep the score")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for the table's Wi-Fi; "
                    "a game PIN is then asked before any write)")
    sv.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    sv.add_argument("--db", default="~/.local/share/mjcam/games.sqlite", metavar="PATH",
                    help="the game ledger (default ~/.local/share/mjcam/games.sqlite)")
    sv.add_argument("--pin", help="the game PIN (default: made up when not on localhost)")
    sv.add_argument("--read-pin", action="store_true",
                    help="ask the PIN before showing the games, their CSV and photos too (by default anyone "
                         "who can reach the server reads them; the PIN guards changes)")
    sv.add_argument("--allow-host", action="append", metavar="NAME",
                    help="also answer to this host name (it answers to its addresses, localhost and, on the "
                         "network, its own name); may be given again")
    sv.set_defaults(func=cmd_serve)


def _add_rules(sub) -> None:
    r = sub.add_parser("rules", help="list the presets, or one preset's patterns and values")
    r.add_argument("id", nargs="?", choices=PRESET_IDS, metavar="ID",
                   help="a preset to show: " + ", ".join(PRESET_IDS) + " (none: list them)")
    r.add_argument("--config", metavar="FILE.toml", help="show the preset with these house rules")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.add_argument("--explain", action="store_true",
                   help="every pattern in the rule book's own words, what it implies and what it excludes")
    r.set_defaults(func=cmd_rules)


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:  # a bare 'mjcam': what it does and its commands
            parser.print_help(sys.stderr)
            return 2
        return args.func(args)
    except NotationError as e:  # with a hint where one fits: a code in the wrong case, a kong not marked
        from mjcam.hints import hint

        print(f"mjcam: error: {hint(str(e), ' '.join(getattr(args, 'hand', None) or []))}", file=sys.stderr)
        return 2
    except (UsageError, ContextError, ConfigError) as e:
        print(f"mjcam: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mjcam: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
