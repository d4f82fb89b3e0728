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


def _chow_stats(chows: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(chow_mask, dup_mask, pairs of equal chows, most of one chow) of sorted chow starts."""
    cm = dm = pairs = most = run = 0
    last = -1
    for c in chows:
        if c == last:
            run += 1
            dm |= 1 << c
            if run == 2 or run == 4:
                pairs += 1
        else:
            run = 1
            cm |= 1 << c
            last = c
        if run > most:
            most = run
    return cm, dm, pairs, most


def _split(chows: list[int], pair: int, pungs: list[int]) -> tuple:
    """A split of (part of) the concealed tiles: (chows, pair or -1, pungs, chow_mask, dup_mask,
    pairs of equal chows, most of one chow, pung_mask), chows and pungs sorted."""
    chows_t, pungs_t = tuple(sorted(chows)), tuple(sorted(pungs))
    pm = 0
    for t in pungs_t:
        pm |= 1 << t
    return (chows_t, pair, pungs_t) + _chow_stats(chows_t) + (pm,)


_SUITS: tuple[dict, dict, dict] = ({}, {}, {})  # per suit: its 9 counts -> (has a pair, splits)
_HONOURS: dict = {}  # the 7 honour counts -> split, or None


def _suit_entry(s: int, seg: tuple[int, ...]) -> tuple | None:
    """Every split of suit ``s``'s 9 counts into sets (and a pair when the count calls for one);
    None when there is none. Made once per count vector and kept: the per-suit table."""
    r = sum(seg) % 3
    splits = () if r == 1 else _suit_splits(seg, r == 2)
    entry = None
    if splits:
        base = 9 * s
        out = {}  # one split per multiset of sets: the walk can reach one in several orders
        for sp in splits:
            pair = next((base + i for k, i in sp if k == "pair"), -1)
            split = _split([base + i for k, i in sp if k == "chow"], pair, [base + i for k, i in sp if k == "pung"])
            out[split[:3]] = split
        entry = (r == 2, tuple(out.values()))
    table = _SUITS[s]
    if len(table) > 50000:  # a bound for a long-running process that meets many odd hands
        table.clear()
    table[seg] = entry
    return entry


def _honour_entry(seg: tuple[int, ...]) -> tuple | None:
    pungs, pair, pairs = [], -1, 0
    for i, n in enumerate(seg):
        if n == 3:
            pungs.append(27 + i)
        elif n == 2:
            pair, pairs = 27 + i, pairs + 1
        elif n:
            pairs = 9  # a single or four alike: no split
    entry = None if pairs > 1 else _split([], pair, pungs)
    if len(_HONOURS) > 50000:
        _HONOURS.clear()
    _HONOURS[seg] = entry
    return entry


@lru_cache(maxsize=65536)
def split_counts(counts: tuple[int, ...]) -> tuple[tuple, ...]:
    """All ways to split concealed tile counts into sets and exactly one pair, each as a split
    (see :func:`_split`), in the order of :func:`decompose_counts`. Each suit's splits come from
    the per-suit table (each 9-count vector decomposed once); the whole hand is cached too.

    >>> split_counts(tuple([3, 1, 1] + [0] * 31))[0][:3]
    ((0,), 0, ())
    """
    seg = counts[27:]
    h = _HONOURS[seg] if seg in _HONOURS else _honour_entry(seg)
    if h is None:
        return ()
    n_pairs = h[1] >= 0
    parts = []
    for s in (0, 1, 2):
        seg = counts[9 * s: 9 * s + 9]
        table = _SUITS[s]
        e = table[seg] if seg in table else _suit_entry(s, seg)
        if e is None:
            return ()
        n_pairs += e[0]
        parts.append(e[1])
    if n_pairs != 1:
        return ()
    a, b, c = parts
    if len(a) == len(b) == len(c) == 1:
        return (_join(a[0], b[0], c[0], h),)
    out = [_join(x, y, z, h) for x in a for y in b for z in c]
    out.sort(key=deco_of)
    return tuple(out)


def _join(a: tuple, b: tuple, c: tuple, h: tuple) -> tuple:
    pair = a[1] if a[1] >= 0 else b[1] if b[1] >= 0 else c[1] if c[1] >= 0 else h[1]
    return (a[0] + b[0] + c[0], pair, a[2] + b[2] + c[2] + h[2], a[3] | b[3] | c[3], a[4] | b[4] | c[4],
            a[5] + b[5] + c[5], max(a[6], b[6], c[6]), a[7] | b[7] | c[7] | h[7])


def deco_of(split: tuple) -> tuple[tuple[str, int], ...]:
    """A split as sorted (kind, tile) pairs: chows, the pair, pungs."""
    return (tuple(("chow", c) for c in split[0]) + (("pair", split[1]),)
            + tuple(("pung", t) for t in split[2]))


def decompose_counts(counts: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """All ways to split concealed tile counts into sets and exactly one pair.

    Returns sorted tuples of (kind, tile).

    >>> decompose_counts(tuple([3, 1, 1] + [0] * 31))
    ((('chow', 0), ('pair', 0)),)
    >>> decompose_counts(tuple([3, 1] + [0] * 32))  # no whole number of sets and a pair
    ()
    >>> decompose_counts(tuple([3, 1, 1, 1, 1, 1, 0, 0, 0] + [0] * 18 + [2, 2, 2, 0, 0, 0, 0]))  # four pairs
    ()
    """
    return tuple(deco_of(sp) for sp in split_counts(counts))


def split_winners(split: tuple, win: int) -> list[tuple[str, int]]:
    """The distinct sets or pair of a split that the winning tile can have completed, in the
    order of its decomposition (each is one reading of the hand)."""
    out = []
    last = -1
    for c in split[0]:
        if c <= win <= c + 2 and c != last:
            out.append(("chow", c))
            last = c
    if split[1] == win:
        out.append(("pair", win))
    if win in split[2]:
        out.append(("pung", win))
    return out


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


def standard_arrangement(melded: tuple[Group, ...], deco: tuple[tuple[str, int], ...], kind: str,
                         tile: int, win: int, self_drawn: bool) -> Arrangement:
    """The reading of ``deco`` (plus the declared sets) in which the winning tile completed
    (``kind``, ``tile``)."""
    groups = list(melded)
    marked = False
    for k2, t2 in deco:
        is_win = not marked and k2 == kind and t2 == tile
        marked = marked or is_win
        # a pung completed by a discard was in part claimed: exposed, not concealed
        concealed = not (is_win and k2 == "pung" and not self_drawn)
        groups.append(_new(Group, (k2, t2, False, concealed, is_win)))
    return _new(Arrangement, ("standard", tuple(groups), _wait(kind, tile, win)))


def melded_groups(hand: Hand) -> tuple[Group, ...]:
    """The declared sets of ``hand`` as groups."""
    return tuple(_new(Group, (m.kind, m.tiles[0], not m.concealed, m.concealed, False)) for m in hand.melds)


_new = tuple.__new__  # a NamedTuple from its fields in order, without the keyword handling


_ORPHAN_LIST = tuple(sorted(ORPHANS))


def is_thirteen_orphans(counts: tuple[int, ...]) -> bool:
    for t in _ORPHAN_LIST:
        if not counts[t]:
            return False
    return sum(counts) == 14 == sum(counts[t] for t in _ORPHAN_LIST)


def seven_pairs_tiles(counts: tuple[int, ...], allow_four: bool) -> list[int] | None:
    """The pair tiles of a seven-pairs reading, or None. ``allow_four``: four alike as two pairs."""
    if sum(counts) != 14 or any(n % 2 for n in counts):
        return None
    if not allow_four and any(n == 4 for n in counts):
        return None
    return [t for t in range(34) for _ in range(counts[t] // 2)]


def arrangements(hand: Hand, self_drawn: bool, *, seven_pairs: bool = True,
                 seven_pairs_allow_four: bool = False) -> list[Arrangement]:
    """Every reading of ``hand``, in a fixed order (standard ones first, in the order of
    :func:`decompose_counts`, then special shapes).

    A hand with no winning tile (a bonus-tile instant win) has the single reading 'bonus'.
    """
    melded = melded_groups(hand)
    win = hand.winning
    if win is None:
        return [Arrangement("bonus", melded, None)]
    result: list[Arrangement] = []
    for split in split_counts(hand.concealed_counts):
        deco = deco_of(split)
        for kind, tile in split_winners(split, win):
            result.append(standard_arrangement(melded, deco, kind, tile, win, self_drawn))
    if not hand.melds:
        result.extend(special_arrangements(hand, seven_pairs, seven_pairs_allow_four))
    return result


def special_arrangements(hand: Hand, seven_pairs: bool = True, allow_four: bool = False) -> list[Arrangement]:
    """The seven-pairs and thirteen-orphans readings of a hand with no declared sets."""
    counts = hand.concealed_counts
    win = hand.winning
    result: list[Arrangement] = []
    if seven_pairs:
        pairs = seven_pairs_tiles(counts, allow_four)
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
