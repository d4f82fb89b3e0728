"""Who pays whom: per-seat integer payments that sum to zero.

A scheme gives, in half-units, what the discarder and each other loser pay on a discard win,
and what each loser pays on a self-draw, as multiples of the hand's base points. With dealer
doubling (the Wikipedia rules) every loser pays double when the dealer wins and the dealer pays double
when he loses; two doublings redouble. A responsible seat (包) pays what all losers would.
Half-units are rounded up to whole points.

>>> settle(16, "S", discarder=None, dealer="E", scheme="discarder-double")
{'E': -32, 'S': 96, 'W': -32, 'N': -32}
>>> settle(8, "E", discarder="W", dealer="E", scheme="discarder-double", dealer_doubling=True)
{'E': 64, 'S': -16, 'W': -32, 'N': -16}
"""

from __future__ import annotations

from .tiles import SEATS

# name: (discarder, other losers on a discard win, each loser on a self-draw, description), halves
SCHEMES = {
    "discarder-double": (4, 2, 4, "discard: discarder 2x, others 1x; self-draw: each 2x (the Old Style page, the Wikipedia rules)"),
    "discarder-pays-all": (4, 0, 2, "全銃: discard: discarder alone 2x; self-draw: each 1x (the Scoring Guide)"),
    "discarder-single": (2, 0, 2, "discard: discarder alone 1x; self-draw: each 1x (the New Style page)"),
    "half-responsibility": (2, 1, 2, "半銃: discard: discarder 1x, others 1/2; self-draw: each 1x (the New Style page)"),
    "discarder-double-only": (4, 0, 4, "discard: discarder alone 2x; self-draw: each 2x (the Old Style page's outline)"),
    "equal": (2, 2, 2, "everyone pays 1x however the hand was won"),
}


def settle(points: int, winner: str, *, discarder: str | None, dealer: str, scheme: str,
           dealer_doubling: bool = False, responsible: str | None = None) -> dict[str, int]:
    """Payments for a win worth ``points`` base points. All four seats, summing to zero."""
    d_half, o_half, s_half, _ = SCHEMES[scheme]
    out = {s: 0 for s in SEATS}
    for seat in SEATS:
        if seat == winner:
            continue
        half = s_half if discarder is None else (d_half if seat == discarder else o_half)
        amount = points * half
        if dealer_doubling and dealer in (winner, seat):
            amount *= 2
        owed = (amount + 1) // 2
        out[responsible or seat] -= owed
        out[winner] += owed
    return out
