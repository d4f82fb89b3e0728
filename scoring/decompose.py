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

from bisect import bisect_left as _bisect
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


# what a reading's chows hold, one bit each (patterns turns them into traits)
DUP, TWO_DUPS, TRIPLE, QUAD, STRAIGHT, MIXED_TRIPLE, OLD_YOUNG = (1 << i for i in range(7))
_STRAIGHTS = tuple(0b1001001 << (9 * s) for s in range(3))
_OLD_YOUNG = tuple((1 << 9 * s) | (1 << 9 * s + 6) for s in range(3))


def chow_facts(cm: int, dm: int, pairs: int, most: int) -> int:
    """The chow bits (DUP ... OLD_YOUNG) of chows with these stats (see :func:`_chow_stats`)."""
    if not cm:
        return 0
    facts = (DUP if dm else 0) | (TWO_DUPS if pairs >= 2 else 0) | (TRIPLE if most >= 3 else 0) | (QUAD if most == 4 else 0)
    for s in (0, 1, 2):
        if cm & _STRAIGHTS[s] == _STRAIGHTS[s]:
            facts |= STRAIGHT
        if cm & _OLD_YOUNG[s] == _OLD_YOUNG[s]:
            facts |= OLD_YOUNG
    if cm & (cm >> 9) & (cm >> 18) & 0x7F:
        facts |= MIXED_TRIPLE
    return facts


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


def common_numbers(chows, pungs) -> int:
    """The numbers (bit n-1) that every one of these sets holds; all nine when there is none."""
    m = 0x1FF
    for c in chows:
        m &= 7 << (c % 9)
    for t in pungs:
        m &= 1 << (t % 9) if t < 27 else 0
    return m


def _split(chows: list[int], pair: int, pungs: list[int]) -> tuple:
    """A split of (part of) the concealed tiles: (chows, pair or -1, pungs, chow_mask, dup_mask,
    pairs of equal chows, most of one chow, pung_mask, numbers common to every set, chow bits),
    chows and pungs sorted."""
    chows_t, pungs_t = tuple(sorted(chows)), tuple(sorted(pungs))
    pm = 0
    for t in pungs_t:
        pm |= 1 << t
    stats = _chow_stats(chows_t)
    return (chows_t, pair, pungs_t) + stats + (pm, common_numbers(chows_t, pungs_t), chow_facts(*stats))


TABLE_BOUND = 50000  # entries a table keeps, for a long-running process that meets many odd hands
_SUITS: tuple[dict, dict, dict] = ({}, {}, {})  # per suit: its tiles, sorted -> entry (see _suit_entry)
_HONOURS: dict = {}  # the honour tiles, sorted -> (split, tiles held) or None


def _suit_entry(s: int, key: tuple[int, ...]) -> tuple | None:
    """Every split of suit ``s``'s tiles (``key``, sorted) into sets, and a pair when their number
    calls for one: (has a pair, splits, tiles held as a mask, tiles held four times); None when
    there is none. Made once per suit content and kept: the per-suit table."""
    base = 9 * s
    seg = [0] * 9
    for t in key:
        seg[t - base] += 1
    r = len(key) % 3
    splits = () if r == 1 else _suit_splits(tuple(seg), r == 2)
    entry = None
    if splits:
        out = {}  # one split per multiset of sets: the walk can reach one in several orders
        for sp in splits:
            pair = next((base + i for k, i in sp if k == "pair"), -1)
            split = _split([base + i for k, i in sp if k == "chow"], pair, [base + i for k, i in sp if k == "pung"])
            out[split[:3]] = split
        present = 0
        for t in key:
            present |= 1 << t
        entry = (r == 2, tuple(out.values()), present, tuple(base + i for i in range(9) if seg[i] == 4))
    table = _SUITS[s]
    if len(table) > TABLE_BOUND:
        table.clear()
    table[key] = entry
    return entry


def _honour_entry(key: tuple[int, ...]) -> tuple | None:
    pungs, pair, pairs, present = [], -1, 0, 0
    for t in set(key):
        n = key.count(t)
        present |= 1 << t
        if n == 3:
            pungs.append(t)
        elif n == 2:
            pair, pairs = t, pairs + 1
        else:
            pairs = 9  # a single or four alike: no split
    entry = None if pairs > 1 else (_split([], pair, pungs), present)
    if len(_HONOURS) > TABLE_BOUND:
        _HONOURS.clear()
    _HONOURS[key] = entry
    return entry


def split_tiles(tiles: tuple[int, ...]) -> tuple[tuple[tuple, ...], int, tuple[int, ...]] | None:
    """All ways to split the concealed tiles (``tiles`` sorted, as ``Hand.concealed``) into sets
    and exactly one pair: (splits in the order of :func:`decompose_counts`, the tiles held as a
    mask, the tiles held four times); None when there is no way. Each suit's part comes from the
    per-suit table, where each suit content is decomposed once.

    >>> splits, present, fours = split_tiles((0, 0, 0, 1, 2))
    >>> splits[0][:3], present, fours
    (((0,), 0, ()), 7, ())
    """
    i9 = _bisect(tiles, 9)
    i18 = _bisect(tiles, 18, i9)
    i27 = _bisect(tiles, 27, i18)
    # the three suits' lookups are written out, not looped: this runs for every hand scored
    key = tiles[i27:]
    h = _HONOURS.get(key, False)
    if h is False:
        h = _honour_entry(key)
    if h is None:
        return None
    key = tiles[:i9]
    a = _SUITS[0].get(key, False)
    if a is False:
        a = _suit_entry(0, key)
    if a is None:
        return None
    key = tiles[i9:i18]
    b = _SUITS[1].get(key, False)
    if b is False:
        b = _suit_entry(1, key)
    if b is None:
        return None
    key = tiles[i18:i27]
    c = _SUITS[2].get(key, False)
    if c is False:
        c = _suit_entry(2, key)
    if c is None or a[0] + b[0] + c[0] + (h[0][1] >= 0) != 1:
        return None
    hs = h[0]
    present, fours = a[2] | b[2] | c[2] | h[1], a[3] + b[3] + c[3]
    a, b, c = a[1], b[1], c[1]
    if len(a) == len(b) == len(c) == 1:
        return (_join(a[0], b[0], c[0], hs),), present, fours
    out = [_join(x, y, z, hs) for x in a for y in b for z in c]
    out.sort(key=deco_of)
    return tuple(out), present, fours


def split_counts(counts: tuple[int, ...]) -> tuple[tuple, ...]:
    """:func:`split_tiles` of tile counts: the splits alone, () when there is none.

    >>> split_counts(tuple([3, 1, 1] + [0] * 31))[0][:3]
    ((0,), 0, ())
    """
    got = split_tiles(tuple(t for t in range(34) for _ in range(counts[t])))
    return got[0] if got else ()


def _join(a: tuple, b: tuple, c: tuple, h: tuple) -> tuple:
    """The split of a whole hand from its three suits' and its honours' splits."""
    pair = a[1] if a[1] >= 0 else b[1] if b[1] >= 0 else c[1] if c[1] >= 0 else h[1]
    cm = a[3] | b[3] | c[3]
    pairs = a[5] + b[5] + c[5]
    most = a[6] if a[6] >= b[6] and a[6] >= c[6] else b[6] if b[6] >= c[6] else c[6]
    facts = a[9] | b[9] | c[9]  # each suit's own: equal chows, straights, 123 with 789
    if pairs >= 2:
        facts |= TWO_DUPS
    if cm & (cm >> 9) & (cm >> 18) & 0x7F:
        facts |= MIXED_TRIPLE
    return (a[0] + b[0] + c[0], pair, a[2] + b[2] + c[2] + h[2], cm, a[4] | b[4] | c[4], pairs, most,
            a[7] | b[7] | c[7] | h[7], a[8] & b[8] & c[8] & h[8], facts)


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
    got = split_tiles(hand.concealed)
    for split in got[0] if got else ():
        deco = deco_of(split)
        for kind, tile in split_winners(split, win):
            result.append(standard_arrangement(melded, deco, kind, tile, win, self_drawn))
    if not hand.melds:
        result.extend(special_arrangements(hand, seven_pairs, seven_pairs_allow_four))
    return result


def special_arrangements(hand: Hand, seven_pairs: bool = True, allow_four: bool = False) -> list[Arrangement]:
    """The seven-pairs and thirteen-orphans readings of a hand with no declared sets."""
    tiles = hand.concealed
    win = hand.winning
    result: list[Arrangement] = []
    if seven_pairs:
        pairs = tiles[0::2]
        if pairs == tiles[1::2] and (allow_four or len(set(pairs)) == 7):
            groups = []
            marked = False
            for t in pairs:
                is_win = not marked and t == win
                marked = marked or is_win
                groups.append(Group("pair", t, winning=is_win))
            result.append(Arrangement("seven_pairs", tuple(groups), "single"))
    if len(tiles) == 14 and tiles[0] == 0 and tiles[-1] == 33 and set(tiles) == ORPHANS:
        result.append(Arrangement("thirteen_orphans", (Group("orphans", win, winning=True),),
                                  "thirteen-sided" if tiles.count(win) == 2 else "single"))
    return result
