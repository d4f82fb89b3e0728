"""Score a hand: every reading is scored and the best one is kept.

The best reading is the one that pays most (highest base points, a reading that meets the
minimum before one that does not), then the highest raw fan, then the first in the fixed order of
:func:`scoring.decompose.arrangements` (standard readings in sorted order, then seven pairs,
then thirteen orphans).

>>> r = score("[RdRdRd] [123s] [999s] 45s NN +6s", discarder="W", seat="S")
>>> r.fan, r.points, r.payments
(5, 16, {'E': -16, 'S': 64, 'W': -32, 'N': -16})
>>> [p.id for p in r.patterns]
['no_flowers', 'half_flush', 'dragon_pung']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .context import ContextError, WinContext
from .decompose import (Arrangement, _chow_stats, _wait, arrangements, chow_facts, common_numbers, deco_of, melded_groups,
                        special_arrangements, split_tiles, split_winners, standard_arrangement)
from .notation import Hand, format_hand, parse_hand
from .patterns import BONUS_TILES, HAND_CONTENTS, PATTERNS, Features
from .payments import settle
from .rules import RulePreset, load_preset, read_config
from .tables import points as table_points
from .tiles import CODES, SEATS, code

BONUS_PATTERNS = BONUS_TILES


@dataclass(frozen=True)
class PatternScore:
    id: str
    name: str
    zh: str
    fan: int
    count: int = 1
    limit: bool = False


@dataclass(frozen=True)
class ScoreResult:
    """The score of one hand under one preset. ``fan`` is after the cap, ``raw_fan`` before.

    ``arrangement`` (the reading that scored best) is made when first asked for: most callers
    want the fan and the payments only.
    """

    rules: str
    legal: bool
    reason: str | None
    fan: int
    raw_fan: int
    limit: bool
    min_fan: int
    meets_min: bool
    patterns: tuple[PatternScore, ...]
    suppressed: tuple[tuple[str, str], ...]  # (pattern id, suppressed by)
    # the Arrangement, or (split, winning kind, winning tile, self-drawn) to make it from
    reading: Arrangement | tuple | None = field(compare=False, repr=False)
    points: int
    payments: dict
    hand: Hand
    context: WinContext
    readings: int = 0
    notes: tuple[str, ...] = field(default=())
    table: str = ""
    payment: str = ""

    @property
    def arrangement(self) -> Arrangement | None:
        """The reading that scored best (None when the hand is no win)."""
        r = self.reading
        if r is None or type(r) is Arrangement:
            return r
        split, kind, tile, self_drawn = r
        arr = standard_arrangement(melded_groups(self.hand), deco_of(split), kind, tile, self.hand.winning, self_drawn)
        object.__setattr__(self, "reading", arr)
        return arr

    def to_json(self) -> dict:
        """The JSON object of `mjcam score --json` (docs/reference.md)."""
        return {
            "rules": self.rules, "legal": self.legal, "reason": self.reason,
            "fan": self.fan, "raw_fan": self.raw_fan, "limit": self.limit,
            "min_fan": self.min_fan, "meets_min": self.meets_min,
            "patterns": [{"id": p.id, "name": p.name, "zh": p.zh, "fan": p.fan, "count": p.count}
                         for p in self.patterns],
            "suppressed": [{"id": s, "by": b} for s, b in self.suppressed],
            "arrangement": arrangement_json(self.arrangement, self.hand),
            "wait": self.arrangement.wait if self.arrangement else None,
            "points": self.points, "payments": dict(self.payments),
            "hand": format_hand(self.hand),
            "bonus": [CODES[b] for b in self.hand.bonus],
            "readings": self.readings,
            "table": self.table, "payment": self.payment,
            "notes": list(self.notes),
        }


def arrangement_json(arr: Arrangement | None, hand: Hand) -> list[dict]:
    if arr is None:
        return []
    out = []
    for g in arr.groups:
        tiles = sorted(hand.concealed) if g.kind == "orphans" else list(g.tiles)
        out.append({"kind": g.kind, "tiles": [code(t) for t in tiles], "melded": g.melded,
                    "concealed": g.concealed, "winning": g.winning})
    return out


@dataclass
class _Eval:
    arr: Arrangement
    patterns: list[PatternScore]
    suppressed: list[tuple[str, str]]
    raw_fan: int
    fan: int
    limit: bool
    bonus_fan: int
    points: int | None
    meets_min: bool


def _matches(f: Features, preset: RulePreset) -> dict[str, int]:
    """Pattern id -> count for the reading ``f`` holds, in registry order."""
    _, exact, tests = preset.candidates_of(f.traits)
    return _merge(preset, exact, _tested(f, tests))


def _tested(f: Features, tests: tuple) -> tuple[tuple[str, int], ...]:
    out = []
    for pid, fn in tests:
        n = fn(f)
        if n:
            out.append((pid, int(n)))
    return tuple(out)


def _merge(preset: RulePreset, exact: tuple[str, ...], tested: tuple) -> dict[str, int]:
    order = preset.order
    items = sorted([(pid, 1) for pid in exact] + list(tested), key=lambda x: order[x[0]])
    return dict(items)


def _score_reading(f: Features, preset: RulePreset) -> tuple:
    """The tally of the reading ``f`` holds: the predicates that can match are called, and the
    rest is remembered per (traits, what the predicates found), which repeats across hands far
    more often than hands do."""
    cands = preset._candidates.get(f.traits & preset.trait_mask) or preset.candidates_of(f.traits)
    tests = cands[2]
    if tests:
        tested = []
        for pid, fn in tests:
            n = fn(f)
            if n:
                tested.append((pid, int(n)))
        key = (cands[0], tuple(tested))
    else:
        key = cands[0]
    tallies = preset._tallies
    tally = tallies.get(key)
    if tally is None:
        if len(tallies) > MEMO_BOUND:
            tallies.clear()
        tally = tallies[key] = _tally(preset, _merge(preset, cands[1], key[1] if tests else ()))
    return tally


def _tally(preset: RulePreset, matched: dict[str, int]) -> tuple:
    """One reading's matches under the preset: what a pattern includes is not scored again (k
    instances, or all), a limit hand replaces everything but other limit hands, then the cap,
    minimum and table. Returns (kept, suppressed, limits, raw, fan, bonus_fan, points, meets,
    PatternScores)."""
    replaces = preset.replaces
    suppressed: list[tuple[str, str]] = []
    taken: dict[str, int] = {}
    for pid in matched:
        for victim, k in replaces.get(pid, ()):
            if victim in matched:
                suppressed.append((victim, pid))
                taken[victim] = max(taken.get(victim, 0), k or matched[victim])
    if taken:
        kept = [(pid, n - taken.get(pid, 0)) for pid, n in matched.items() if n > taken.get(pid, 0)]
    else:
        kept = list(matched.items())
    values = preset.patterns
    limits = [pid for pid, _ in kept if values[pid] == "limit"]
    if limits:
        suppressed += [(pid, limits[0]) for pid, _ in kept if values[pid] != "limit"]
        raw = fan = preset.limit or 0
        bonus_fan = 0
    else:
        raw = bonus_fan = 0
        for pid, n in kept:
            raw += values[pid] * n
            if pid in BONUS_PATTERNS:
                bonus_fan += values[pid] * n
        fan = raw if preset.cap is None or raw <= preset.cap else preset.cap
    counted = raw if preset.bonus_counts_for_min else raw - bonus_fan
    meets = bool(limits) or counted >= preset.min_fan
    if meets and not limits and preset.settings["content_minimum"] and not _limit_worthy(preset, raw):
        meets = any(pid in HAND_CONTENTS for pid, _ in kept)
    if limits:
        scores = tuple(_pattern_score(pid, fan, 1, True) for pid in limits)
    else:
        scores = tuple(_pattern_score(pid, values[pid] * n, n, False) for pid, n in kept)
    return (tuple(kept), tuple(suppressed), tuple(limits), raw, fan, bonus_fan,
            table_points(preset.table, fan), meets, scores)


def _limit_worthy(preset: RulePreset, raw: int) -> bool:
    """Whether ``raw`` fan reach the preset's limit: such a hand is one of the improbable
    high-scoring hands a hand-content minimum excepts."""
    return preset.limit is not None and raw >= preset.limit


_SCORES: dict[tuple, PatternScore] = {}


def _pattern_score(pid: str, fan: int, count: int, limit: bool) -> PatternScore:
    """PatternScores are immutable: one object per (id, fan, count, limit), made once."""
    key = (pid, fan, count, limit)
    ps = _SCORES.get(key)
    if ps is None:
        p = PATTERNS[pid]
        ps = _SCORES[key] = PatternScore(pid, p.name, p.zh, fan, count, limit)
    return ps


def _eval_of(arr: Arrangement, preset: RulePreset, tally: tuple) -> _Eval:
    kept, suppressed, limits, raw, fan, bonus_fan, pts, meets, scores = tally
    return _Eval(arr, list(scores), list(suppressed), raw, fan, bool(limits), bonus_fan, pts, meets)


def _evaluate(hand: Hand, arr: Arrangement, ctx: WinContext, preset: RulePreset) -> _Eval:
    """Score one reading (any shape) under the preset."""
    f = Features(hand, arr, ctx, preset.settings)
    return _eval_of(arr, preset, _score_reading(f, preset))


def _key(e: _Eval, i: int) -> tuple:
    pays = e.meets_min and e.points is not None
    return (pays, e.points or 0, e.raw_fan, -i)


def _tally_key(t: tuple, i: int) -> tuple:
    pays = t[7] and t[6] is not None
    return (pays, t[6] or 0, t[3], -i)


def _readings(h: Hand, ctx: WinContext, preset: RulePreset, f: Features, got: tuple | None) -> list[tuple]:
    """Every reading of ``h``, in the order of :func:`arrangements`, each with its tally:
    (arrangement or None, split, winning kind, winning tile, tally). Standard readings are scored
    from the split (``got``: ``decompose.split_tiles`` of the concealed tiles) without building their
    Arrangement (the chosen one is built after); seven pairs, thirteen orphans and bonus readings go
    through the Arrangement."""
    out: list[tuple] = []
    win = h.winning
    if win is None:
        arr = Arrangement("bonus", melded_groups(h), None)
        f.read(arr)
        out.append((arr, None, None, None, _score_reading(f, preset)))
        return out
    self_drawn = ctx.discarder is None
    if got is not None:
        splits = got[0]
        kong_free = preset.settings["melded_kong_counts_concealed"]
        m_pungs: tuple = ()
        m_chows: tuple = ()
        kongs = m_conc = m_sets = m_pungs_melded = m_mask = 0
        for m in h.melds:
            t = m.tiles[0]
            if m.kind == "chow":
                m_chows += (t,)
                m_sets += 1
                continue
            kong = m.kind == "kong"
            m_pungs += (t,)
            m_mask |= 1 << t
            kongs += kong
            if m.concealed:
                m_conc += 1
            else:
                m_pungs_melded += 1
                if kong and kong_free:
                    m_conc += 1
                else:
                    m_sets += 1
        m_common = common_numbers(m_chows, m_pungs)
        for split in splits:
            chows, pair, pungs, cm, dm, cpairs, cmax, pm, common, facts = split
            n_conc = m_conc + len(pungs)
            if m_pungs:
                pungs = m_pungs + pungs
                pm |= m_mask
            if m_chows:
                chows = tuple(sorted(m_chows + chows))
                cm, dm, cpairs, cmax = _chow_stats(chows)
                facts = chow_facts(cm, dm, cpairs, cmax)
            common &= m_common
            for kind, tile in split_winners(split, win):
                f.set_split("standard", pungs, chows, pair, kongs, n_conc - (kind == "pung" and not self_drawn),
                            m_sets, m_pungs_melded, _wait(kind, tile, win), pm, cm, dm, cpairs, cmax, common, facts)
                out.append((None, split, kind, tile, _score_reading(f, preset)))
    tiles = h.concealed
    if not h.melds and (tiles[0] == tiles[1] or tiles[0] == 0):  # else neither seven pairs nor thirteen orphans
        settings = preset.settings
        for arr in special_arrangements(h, "seven_pairs" in preset.active_ids, settings["seven_pairs_allow_four"]):
            f.read(arr)
            out.append((arr, None, None, None, _score_reading(f, preset)))
    return out


MEMO_BOUND = 65536  # entries a memo keeps before it starts again
_CONTEXTS: dict[tuple, WinContext] = {}


def _context(kw: dict) -> WinContext:
    """The WinContext of ``kw`` (WinContext fields and ``self_drawn``; changed in place), made once
    per distinct situation."""
    key = tuple(sorted(kw.items())) if kw else ()
    ctx = _CONTEXTS.get(key)
    if ctx is not None:
        return ctx
    self_drawn = kw.pop("self_drawn", None)
    discarder = kw.get("discarder")
    if self_drawn and discarder:
        raise ContextError("give either self_drawn or a discarder, not both")
    if self_drawn is False and not discarder:
        raise ContextError("a win that is not self-drawn needs the discarder's seat")
    ctx = WinContext(**kw)
    if len(_CONTEXTS) > MEMO_BOUND:
        _CONTEXTS.clear()
    _CONTEXTS[key] = ctx
    return ctx


def resolve_preset(rules: str | RulePreset = "hk-old-style", *, config: str | dict | None = None,
                   min_fan: int | None = None, cap: int | None = None, table: str | None = None,
                   payment: str | None = None) -> RulePreset:
    """A preset with house rules applied: the config file (or dict) first, then the flags."""
    overrides: dict = {}
    if config is not None:
        overrides.update(read_config(config) if isinstance(config, str) else config)
    for key, val in (("min_fan", min_fan), ("cap", cap), ("table", table), ("payment", payment)):
        if val is not None:
            overrides[key] = val
    return load_preset(rules, overrides)


def score(hand: str | Hand, rules: str | RulePreset = "hk-old-style", *, config: str | dict | None = None,
          min_fan: int | None = None, cap: int | None = None, table: str | None = None,
          payment: str | None = None, **situation) -> ScoreResult:
    """Score ``hand`` under ``rules`` (a preset id or a :class:`RulePreset`).

    ``situation`` holds the fields of :class:`WinContext` (``discarder``, ``seat``, ``round``,
    ``dealer``, ``last_tile`` ...) and ``self_drawn``; the default is a self-drawn win by East.
    Raises NotationError, ContextError or ConfigError for input that cannot be read; a hand that
    is understood but is no (paying) win gives ``legal=False`` with a reason.

    >>> score("[EEE] 345p [678m] [222s] 8p +8p").payments
    {'E': 96, 'S': -32, 'W': -32, 'N': -32}
    >>> r = score("123m 456m 789m 123p 4p +5p")
    >>> r.legal, r.reason
    (False, 'not a winning hand: the tiles do not make four sets and a pair, seven pairs or thirteen orphans')
    """
    if config is None and min_fan is None and cap is None and table is None and payment is None:
        preset = rules if isinstance(rules, RulePreset) else load_preset(rules)
    else:
        preset = resolve_preset(rules, config=config, min_fan=min_fan, cap=cap, table=table, payment=payment)
    h = parse_hand(hand) if isinstance(hand, str) else hand
    ctx = _context(situation)
    if h.bonus and not ctx.flowers_in_play:
        raise ContextError("the hand has bonus tiles but flowers are not in play")
    active_ids = preset.active_ids
    got = split_tiles(h.concealed) if h.winning is not None else None
    if got is not None and not h.melds:
        f = Features(h, None, ctx, preset.settings, got[1], got[2])
    else:
        f = Features(h, None, ctx, preset.settings)
    reads = _readings(h, ctx, preset, f, got)
    notes = []
    reason = None
    if not reads:
        reason = "not a winning hand: the tiles do not make four sets and a pair, seven pairs or thirteen orphans"
        if "seven_pairs" not in active_ids and arrangements(h, ctx.self_drawn, seven_pairs=True,
                                                            seven_pairs_allow_four=True):
            reason = f"seven pairs is not a winning hand under {preset.id}"
    elif h.winning is None and not preset.settings["instant_bonus_win"]:
        reason = f"{preset.id} has no instant win on bonus tiles: mark the winning tile with +"
        reads = []
    elif (ctx.heavenly or ctx.earthly or ctx.man) and any(not m.concealed for m in h.melds):
        reason = "a heavenly, earthly or man's hand cannot have melded sets"
        reads = []
    if ctx.last_of_kind or ctx.ready or ctx.man:
        for flag, pid in (("last_of_kind", "last_of_kind"), ("ready", "ready_hand"), ("man", "man")):
            if getattr(ctx, flag) and pid not in active_ids:
                notes.append(f"{preset.id} has no '{PATTERNS[pid].name}' pattern; --{flag.replace('_', '-')} scores nothing")
    if not reads:
        return ScoreResult(preset.id, False, reason, 0, 0, False, preset.min_fan, False, (), (), None,
                           0, dict(_ZERO), h, ctx, 0, tuple(notes), preset.table, preset.payment)
    best_i = 0
    if len(reads) > 1:
        best_i = max(range(len(reads)), key=lambda i: _tally_key(reads[i][4], i))
    arr, split, kind, tile, tally = reads[best_i]
    if arr is None:
        arr = (split, kind, tile, ctx.discarder is None)
    _, suppressed, limits, raw, fan, bonus_fan, points, meets, scores = tally
    legal = meets and points is not None
    if not meets:
        counted = "" if preset.bonus_counts_for_min else " without bonus tiles"
        has = raw - (0 if preset.bonus_counts_for_min else bonus_fan)
        content = (not preset.settings["content_minimum"] or bool(limits) or _limit_worthy(preset, raw)
                   or any(p.id in HAND_CONTENTS for p in scores))
        if has < preset.min_fan:
            reason = f"below the minimum: {preset.min_fan} fan needed, the hand has {has}{counted}"
            if not content:
                reason += ", not one from the hand's contents"
        else:
            reason = (f"no fan from the hand's contents: {preset.id} wants at least 1 fan from its sets, pair, "
                      "suits or honours, not only from how it was won or from bonus tiles")
    elif points is None:
        reason = f"the {preset.table} table pays nothing for {fan} fan"
    pts = points if legal else 0
    responsible = ctx.responsible
    if ctx.robbing_kong and preset.settings["robbed_kong_pays_all"] and responsible is None:
        responsible = ctx.discarder
        notes.append(f"{ctx.discarder}'s kong was robbed: {ctx.discarder} pays for everyone (12-piece penalty)")
    pays = _settle(pts, ctx.seat, ctx.discarder, ctx.dealer, preset.payment, preset.dealer_doubling,
                   responsible) if legal else dict(_ZERO)
    return _result(preset.id, legal, reason, fan, raw, bool(limits), preset.min_fan, meets, scores,
                   suppressed, arr, pts, pays, h, ctx, len(reads), tuple(notes), preset.table, preset.payment)


def _result(rules, legal, reason, fan, raw_fan, limit, min_fan, meets_min, patterns, suppressed, reading, points,
            payments, hand, context, readings, notes, table, payment) -> ScoreResult:
    """A ScoreResult made without the frozen dataclass's __init__ (one object.__setattr__ per
    field): the same object, in a third of the time."""
    r = _new_object(ScoreResult)
    r.__dict__.update(rules=rules, legal=legal, reason=reason, fan=fan, raw_fan=raw_fan, limit=limit,
                      min_fan=min_fan, meets_min=meets_min, patterns=patterns, suppressed=suppressed,
                      reading=reading, points=points, payments=payments, hand=hand, context=context,
                      readings=readings, notes=notes, table=table, payment=payment)
    return r


_new_object = object.__new__


_ZERO = {s: 0 for s in SEATS}


@lru_cache(maxsize=4096)
def _settled(pts: int, seat: str, discarder: str | None, dealer: str, scheme: str, doubling: bool,
             responsible: str | None) -> tuple[tuple[str, int], ...]:
    return tuple(settle(pts, seat, discarder=discarder, dealer=dealer, scheme=scheme,
                        dealer_doubling=doubling, responsible=responsible).items())


def _settle(*args) -> dict[str, int]:
    """:func:`payments.settle`, remembered (a fresh dict each time: callers may change it)."""
    return dict(_settled(*args))
