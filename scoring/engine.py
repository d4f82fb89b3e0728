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

from .context import ContextError, WinContext
from .decompose import Arrangement, arrangements
from .notation import Hand, format_hand, parse_hand
from .patterns import PATTERNS, Features
from .payments import settle
from .rules import RulePreset, load_preset, read_config
from .tables import points as table_points
from .tiles import CODES, SEATS, code

BONUS_PATTERNS = frozenset({"no_flowers", "seat_flower", "seat_season", "all_flowers",
                            "all_seasons", "all_bonus", "seven_bonus"})


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
    """The score of one hand under one preset. ``fan`` is after the cap, ``raw_fan`` before."""

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
    arrangement: Arrangement | None
    points: int
    payments: dict
    hand: Hand
    context: WinContext
    readings: int = 0
    notes: tuple[str, ...] = field(default=())
    table: str = ""
    payment: str = ""

    def to_json(self) -> dict:
        """The JSON object of CONTRACT.md (plus a few extra keys)."""
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


def _evaluate(hand: Hand, arr: Arrangement, ctx: WinContext, preset: RulePreset) -> _Eval:
    f = Features(hand, arr, ctx, preset.settings)
    matched: dict[str, int] = {}
    for pid, fn in preset.candidates(f.shape, f.traits):
        n = fn(f)
        if n:
            matched[pid] = int(n)
    suppressed: list[tuple[str, str]] = []
    taken: dict[str, int] = {}
    replaces = preset.replaces
    for pid in matched:
        for victim, k in replaces.get(pid, ()):
            if victim in matched:
                suppressed.append((victim, pid))
                taken[victim] = max(taken.get(victim, 0), k or matched[victim])
    kept = [(pid, n - taken.get(pid, 0)) for pid, n in matched.items() if n > taken.get(pid, 0)]
    values = preset.patterns
    limits = [(pid, n) for pid, n in kept if values[pid] == "limit"]
    if limits:
        for pid, _ in kept:
            if values[pid] != "limit":
                suppressed.append((pid, limits[0][0]))
        fan = raw = preset.limit or 0
        scores = [PatternScore(pid, PATTERNS[pid].name, PATTERNS[pid].zh, fan, 1, True)
                  for pid, _ in limits]
        bonus_fan = 0
    else:
        scores = [PatternScore(pid, PATTERNS[pid].name, PATTERNS[pid].zh, values[pid] * n, n)
                  for pid, n in kept]
        raw = sum(s.fan for s in scores)
        fan = min(raw, preset.cap) if preset.cap is not None else raw
        bonus_fan = sum(s.fan for s in scores if s.id in BONUS_PATTERNS)
    counted = raw if preset.bonus_counts_for_min else raw - bonus_fan
    meets = bool(limits) or counted >= preset.min_fan
    pts = table_points(preset.table, fan)
    return _Eval(arr, scores, suppressed, raw, fan, bool(limits), bonus_fan, pts, meets)


def _key(e: _Eval, i: int) -> tuple:
    pays = e.meets_min and e.points is not None
    return (pays, e.points or 0, e.raw_fan, -i)


def _context(kw: dict) -> WinContext:
    self_drawn = kw.pop("self_drawn", None)
    discarder = kw.get("discarder")
    if self_drawn and discarder:
        raise ContextError("give either self_drawn or a discarder, not both")
    if self_drawn is False and not discarder:
        raise ContextError("a win that is not self-drawn needs the discarder's seat")
    return WinContext(**kw)


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
    preset = resolve_preset(rules, config=config, min_fan=min_fan, cap=cap, table=table, payment=payment)
    h = parse_hand(hand) if isinstance(hand, str) else hand
    ctx = _context(dict(situation))
    if h.bonus and not ctx.flowers_in_play:
        raise ContextError("the hand has bonus tiles but flowers are not in play")
    active_ids = preset.active_ids
    arrs = arrangements(h, ctx.self_drawn, seven_pairs="seven_pairs" in active_ids,
                        seven_pairs_allow_four=preset.settings["seven_pairs_allow_four"])
    notes = []
    reason = None
    if not arrs:
        reason = "not a winning hand: the tiles do not make four sets and a pair, seven pairs or thirteen orphans"
        if "seven_pairs" not in active_ids and arrangements(h, ctx.self_drawn, seven_pairs=True,
                                                            seven_pairs_allow_four=True):
            reason = f"seven pairs is not a winning hand under {preset.id}"
    elif arrs[0].shape == "bonus" and not preset.settings["instant_bonus_win"]:
        reason = f"{preset.id} has no instant win on bonus tiles: mark the winning tile with +"
        arrs = []
    elif (ctx.heavenly or ctx.earthly or ctx.man) and any(not m.concealed for m in h.melds):
        reason = "a heavenly, earthly or man's hand cannot have melded sets"
        arrs = []
    for flag, pid in (("last_of_kind", "last_of_kind"), ("ready", "ready_hand"), ("man", "man")):
        if getattr(ctx, flag) and pid not in active_ids:
            notes.append(f"{preset.id} has no '{PATTERNS[pid].name}' pattern; --{flag.replace('_', '-')} scores nothing")
    zero = {s: 0 for s in SEATS}
    if not arrs:
        return ScoreResult(preset.id, False, reason, 0, 0, False, preset.min_fan, False, (), (), None,
                           0, zero, h, ctx, 0, tuple(notes), preset.table, preset.payment)
    evals = [_evaluate(h, a, ctx, preset) for a in arrs]
    best_i = max(range(len(evals)), key=lambda i: _key(evals[i], i))
    e = evals[best_i]
    legal = e.meets_min and e.points is not None
    if not e.meets_min:
        counted = "" if preset.bonus_counts_for_min else " without bonus tiles"
        reason = f"below the minimum: {preset.min_fan} fan needed, the hand has {e.raw_fan - (0 if preset.bonus_counts_for_min else e.bonus_fan)}{counted}"
    elif e.points is None:
        reason = f"the {preset.table} table pays nothing for {e.fan} fan"
    pts = e.points if legal else 0
    responsible = ctx.responsible
    if ctx.robbing_kong and preset.settings["robbed_kong_pays_all"] and responsible is None:
        responsible = ctx.discarder
        notes.append(f"{ctx.discarder}'s kong was robbed: {ctx.discarder} pays for everyone (12-piece penalty)")
    pays = settle(pts, ctx.seat, discarder=ctx.discarder, dealer=ctx.dealer, scheme=preset.payment,
                  dealer_doubling=preset.dealer_doubling, responsible=responsible) if legal else zero
    return ScoreResult(preset.id, legal, reason, e.fan, e.raw_fan, e.limit, preset.min_fan,
                       e.meets_min, tuple(e.patterns), tuple(e.suppressed), e.arr, pts, pays, h, ctx,
                       len(evals), tuple(notes), preset.table, preset.payment)
