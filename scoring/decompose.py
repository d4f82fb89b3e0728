"""Every way to read a hand: four sets and a pair, seven pairs, thirteen orphans.

:func:`arrangements` returns each reading together with the set or pair the winning tile
completed and the wait it implies ('single' on the pair, 'closed', 'edge', 'two-sided' on a
chow, 'pung' when a pair became a pung). A pung completed on a discard counts as exposed.
Decompositions of the concealed tiles are cached by their tile counts.

>>> h = parse_hand("11122233m 789p 55s +3m")
>>> sorted({(a.winning_group.kind, a.wait) for a in arrangements(h, self_drawn=False)})
[('chow', 'edge'), ('pung', 'pung')]
>>> h = parse_hand("1123m 789p 456s EEE +4m")
>>> sorted({(a.winning_group.kind, a.wait) for a in arrangements(h, self_drawn=True)})
[('chow', 'two-sided')]
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from .notation import Hand, parse_hand  # noqa: F401  (parse_hand for the doctests)
from .tiles import ORPHANS


_SIZES = {"pair": 2, "pung": 3, "kong": 4}


class Group(NamedTuple):
    """One set or pair of a reading.

    ``melded``: declared ``[...]``; ``concealed``: hidden from the others, which a pung completed by a
    discard is not; ``winning``: the group the winning tile completed.
    """

    kind: str  # 'chow', 'pung', 'kong', 'pair', or 'orphans' (thirteen orphans as one group)
    tile: int  # lowest tile
    melded: bool = False
    concealed: bool = True
    winning: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        size = _SIZES.get(self.kind)
        if size:
            return (self.tile,) * size
        raise ValueError(self.kind)  # 'orphans' groups carry their tiles in the arrangement


class Arrangement(NamedTuple):
    """A reading of the whole hand. ``shape``: 'standard', 'seven_pairs', 'thirteen_orphans', 'bonus'."""

    shape: str
    groups: tuple[Group, ...]
    wait: str | None

    @property
    def winning_group(self) -> Group | None:
        for g in self.groups:
            if g.winning:
                return g
        return None


@lru_cache(maxsize=4096)
def _suit_splits(seg: tuple[int, ...], pair: bool) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Ways to split the counts of one suit (9 numbers) into sets, and one pair if ``pair``."""
    out: set[tuple[tuple[str, int], ...]] = set()
    c = list(seg)

    def walk(acc: list[tuple[str, int]], need_pair: bool) -> None:
        i = next((k for k in range(9) if c[k]), -1)
        if i < 0:
            if not need_pair:
                out.add(tuple(acc))
            return
        if c[i] >= 3:
            c[i] -= 3
            acc.append(("pung", i))
            walk(acc, need_pair)
            acc.pop()
            c[i] += 3
        if c[i] >= 2 and need_pair:
            c[i] -= 2
            acc.append(("pair", i))
            walk(acc, False)
            acc.pop()
            c[i] += 2
        if i <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            acc.append(("chow", i))
            walk(acc, need_pair)
            acc.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    walk([], pair)
    return tuple(out)


@lru_cache(maxsize=65536)
def decompose_counts(counts: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """All ways to split concealed tile counts into sets and exactly one pair.

    Returns sorted tuples of (kind, tile). Cached by the counts, and each suit's splits by that
    suit's counts.

    >>> decompose_counts(tuple([3, 1, 1] + [0] * 31))
    ((('chow', 0), ('pair', 0)),)
    >>> decompose_counts(tuple([3, 1] + [0] * 32))  # no whole number of sets and a pair
    ()
    >>> decompose_counts(tuple([3, 1, 1, 1, 1, 1, 0, 0, 0] + [0] * 18 + [2, 2, 2, 0, 0, 0, 0]))  # four pairs
    ()
    """
    if sum(counts) % 3 != 2:
        return ()
    fixed: list[tuple[str, int]] = []
    pairs = 0
    for t in range(27, 34):
        n = counts[t]
        if n == 3:
            fixed.append(("pung", t))
        elif n == 2:
            fixed.append(("pair", t))
            pairs += 1
        elif n:
            return ()
    parts: list[list[tuple[tuple[str, int], ...]]] = []
    for s in range(3):
        seg = counts[9 * s: 9 * s + 9]
        r = sum(seg) % 3
        if r == 1:
            return ()
        pairs += r == 2
        splits = _suit_splits(seg, r == 2)
        if not splits:
            return ()
        base = 9 * s
        parts.append([tuple((k, t + base) for k, t in sp) for sp in splits])
    if pairs != 1:
        return ()
    out = [tuple(sorted(fixed + list(a) + list(b) + list(c)))
           for a in parts[0] for b in parts[1] for c in parts[2]]
    return tuple(sorted(set(out)))


def _wait(kind: str, tile: int, win: int) -> str:
    if kind == "pair":
        return "single"
    if kind == "pung":
        return "pung"
    pos = win - tile
    if pos == 1:
        return "closed"
    if (pos == 2 and tile % 9 == 0) or (pos == 0 and tile % 9 == 6):
        return "edge"
    return "two-sided"


def _counts(tiles: tuple[int, ...]) -> tuple[int, ...]:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return tuple(c)


def is_thirteen_orphans(counts: tuple[int, ...]) -> bool:
    return sum(counts) == 14 and all(counts[t] for t in ORPHANS) and not any(
        counts[t] for t in range(34) if t not in ORPHANS
    )


def seven_pairs_tiles(counts: tuple[int, ...], allow_four: bool) -> list[int] | None:
    """The pair tiles of a seven-pairs reading, or None. ``allow_four``: four alike as two pairs."""
    if sum(counts) != 14 or any(n % 2 for n in counts):
        return None
    if not allow_four and any(n == 4 for n in counts):
        return None
    return [t for t in range(34) for _ in range(counts[t] // 2)]


def arrangements(hand: Hand, self_drawn: bool, *, seven_pairs: bool = True,
                 seven_pairs_allow_four: bool = False) -> list[Arrangement]:
    """Every reading of ``hand``, in a fixed order (standard ones first, then special shapes).

    A hand with no winning tile (a bonus-tile instant win) has the single reading 'bonus'.
    """
    melded = tuple(
        Group(m.kind, m.tile, melded=not m.concealed, concealed=m.concealed) for m in hand.melds
    )
    win = hand.winning
    if win is None:
        return [Arrangement("bonus", melded, None)]
    counts = _counts(hand.concealed)
    result: list[Arrangement] = []
    for deco in decompose_counts(counts):
        seen: set[tuple[str, int]] = set()
        for kind, tile in deco:
            covers = tile == win if kind != "chow" else tile <= win <= tile + 2
            if not covers or (kind, tile) in seen:
                continue
            seen.add((kind, tile))
            groups = list(melded)
            marked = False
            for k2, t2 in deco:
                is_win = not marked and (k2, t2) == (kind, tile)
                marked = marked or is_win
                # a pung completed by a discard was in part claimed: exposed, not concealed
                concealed = not (is_win and k2 == "pung" and not self_drawn)
                groups.append(Group(k2, t2, concealed=concealed, winning=is_win))
            result.append(Arrangement("standard", tuple(groups), _wait(kind, tile, win)))
    if not hand.melds:
        if seven_pairs:
            pairs = seven_pairs_tiles(counts, seven_pairs_allow_four)
            if pairs:
                groups = []
                marked = False
                for t in pairs:
                    is_win = not marked and t == win
                    marked = marked or is_win
                    groups.append(Group("pair", t, winning=is_win))
                result.append(Arrangement("seven_pairs", tuple(groups), "single"))
        if is_thirteen_orphans(counts):
            result.append(Arrangement("thirteen_orphans", (Group("orphans", win, winning=True),),
                                      "thirteen-sided" if counts[win] == 2 else "single"))
    return result
