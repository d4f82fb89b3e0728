"""Which tiles complete a waiting hand, and what each would score.

>>> [w.tile for w in waits("123m 456m 789m 234p 5p")]
['2p', '5p']
>>> w = waits("[EEE] 345p [678m] [222s] 8p", rules="hk-old-style")[0]
>>> (w.tile, w.discard.fan, w.self_drawn.fan, w.discarder)
('8p', 3, 4, 'N')
"""

from __future__ import annotations

from dataclasses import dataclass

from .decompose import arrangements
from .engine import ScoreResult, resolve_preset, score
from .notation import Hand, parse_hand
from .tiles import SEATS, code


@dataclass(frozen=True)
class Wait:
    tile: str
    discard: ScoreResult
    self_drawn: ScoreResult
    discarder: str


def waits(hand: str | Hand, rules: str = "hk-old-style", *, config=None, min_fan=None, cap=None,
          table=None, payment=None, discarder: str | None = None, **situation) -> list[Wait]:
    """Every tile that completes the 13-tile ``hand``, scored won on a discard and self-drawn.

    The discard is taken from ``discarder``, by default the player before the winner.
    """
    h = parse_hand(hand, waiting=True) if isinstance(hand, str) else hand
    preset = resolve_preset(rules, config=config, min_fan=min_fan, cap=cap, table=table, payment=payment)
    seat = situation.get("seat", "E")
    discarder = discarder or SEATS[(SEATS.index(seat) - 1) % 4]
    counts = h.tile_counts()
    out = []
    for t in range(34):
        if counts[t] >= 4:
            continue
        full = Hand(tuple(sorted(h.concealed + (t,))), h.melds, h.bonus, t)
        if not arrangements(full, True, seven_pairs="seven_pairs" in preset.active_ids,
                            seven_pairs_allow_four=preset.settings["seven_pairs_allow_four"]):
            continue
        by_discard = score(full, preset, discarder=discarder, **situation)
        by_self = score(full, preset, **situation)
        out.append(Wait(code(t), by_discard, by_self, discarder))
    return out
