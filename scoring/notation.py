"""The hand notation of CONTRACT.md: parse it into a :class:`Hand` and print it back.

    [123m] [RdRdRd] {9999s} 456p 78p 55s F2 S3 +9p

``[...]`` is a melded set, ``{...}`` a concealed kong, everything else the concealed part;
``+T`` marks the winning tile (part of the concealed tiles). Suit runs are compact (``123m``),
honours repeat (``EEE``); tenhou honours ``1z``..``7z`` are accepted. A malformed hand raises
:class:`NotationError`, which names the bad token and its 1-based position.

>>> h = parse_hand("[123m] [RdRdRd] {9999s} 78p 55s F2 S3 +9p")
>>> format_hand(h)
'[123m] [RdRdRd] {9999s} 78p 55s F2 S3 +9p'
>>> parse_hand(format_hand(h)) == h
True
>>> parse_hand("123m 456m 789m 11z 22z +2z").concealed[-5:]
(27, 27, 28, 28, 28)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .tiles import CODES, INDEX, SUITS, TENHOU_HONOURS, code, is_bonus


class NotationError(ValueError):
    """A hand that cannot be read. ``token`` and ``position`` (1-based) say where."""

    def __init__(self, message: str, token: str = "", position: int = 0):
        self.token = token
        self.position = position
        where = f" at position {position}" if position else ""
        tok = f" '{token}'" if token else ""
        super().__init__(f"{message}{tok}{where}")


@dataclass(frozen=True)
class Meld:
    """A declared set: ``kind`` is 'chow', 'pung' or 'kong'; ``concealed`` only for ``{kong}``."""

    kind: str
    tiles: tuple[int, ...]
    concealed: bool = False

    @property
    def tile(self) -> int:
        """The lowest tile of the set (the tile itself for a pung or kong)."""
        return self.tiles[0]


@dataclass(frozen=True)
class Hand:
    """A parsed hand. ``concealed`` is sorted and includes the winning tile."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    bonus: tuple[int, ...] = ()
    winning: int | None = None

    @property
    def kongs(self) -> int:
        return sum(1 for m in self.melds if m.kind == "kong")

    def tile_counts(self) -> list[int]:
        """Counts of the 34 playable tiles over the whole hand, melds included."""
        counts = [0] * 34
        for t in self.concealed:
            counts[t] += 1
        for m in self.melds:
            for t in m.tiles:
                counts[t] += 1
        return counts


@dataclass
class _Token:
    tile: int
    text: str
    pos: int
    group: int | None  # index into groups, None for the concealed part
    winning: bool


def _meld_kind(tiles: list[int]) -> str | None:
    t = sorted(tiles)
    if len(set(t)) == 1 and len(t) in (3, 4):
        return "pung" if len(t) == 3 else "kong"
    if len(t) == 3 and t[0] < 27 and t[1] == t[0] + 1 and t[2] == t[0] + 2 and t[0] // 9 == t[2] // 9:
        return "chow"
    return None


def _tokenize(text: str) -> tuple[list[_Token], list[tuple[str, int, int]]]:
    """Split ``text`` into tile tokens; groups are (bracket, start position, end position)."""
    tokens: list[_Token] = []
    groups: list[tuple[str, int, int]] = []
    open_group: tuple[str, int] | None = None
    win_pos = 0  # position of a pending '+'
    i, n = 0, len(text)

    def add(tile: int, tok: str, pos: int) -> None:
        nonlocal win_pos
        tokens.append(_Token(tile, tok, pos, len(groups) if open_group else None, bool(win_pos)))
        win_pos = 0

    while i < n:
        ch = text[i]
        pos = i + 1
        if ch.isspace():
            i += 1
            continue
        if ch in "[{":
            if open_group:
                raise NotationError("a set cannot open inside another set", ch, pos)
            if win_pos:
                raise NotationError("'+' must be followed by a tile", "+", win_pos)
            open_group = (ch, pos)
            i += 1
            continue
        if ch in "]}":
            if not open_group:
                raise NotationError("closing bracket without an opening one", ch, pos)
            if {"[": "]", "{": "}"}[open_group[0]] != ch:
                raise NotationError("mismatched brackets", open_group[0] + "..." + ch, open_group[1])
            groups.append((open_group[0], open_group[1], pos))
            open_group = None
            i += 1
            continue
        if ch == "+":
            if win_pos:
                raise NotationError("'+' must be followed by a tile", "+", win_pos)
            if open_group:
                raise NotationError("the winning tile belongs to the concealed part, not a set", "+", pos)
            win_pos = pos
            i += 1
            continue
        if ch.isdigit():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            tok = text[i : j + 1]
            if j >= n or text[j] not in "mpsz":
                bad = tok if j < n and text[j].isalpha() else text[i:j]
                raise NotationError("digits need a suit letter m, p, s or z after them", bad, pos)
            if win_pos and j - i > 1:
                raise NotationError("'+' must mark a single tile", "+" + tok, win_pos)
            suit = text[j]
            for k in range(i, j):
                d = text[k]
                single = d + suit
                if d == "0":
                    raise NotationError("unknown tile (0m/0p/0s are not Hong Kong tiles)", single, k + 1)
                if suit == "z":
                    if not "1" <= d <= "7":
                        raise NotationError("unknown tile (honours are 1z..7z)", single, k + 1)
                    add(INDEX[TENHOU_HONOURS[int(d) - 1]], single, k + 1)
                else:
                    add(INDEX[single], single, k + 1)
            i = j + 1
            continue
        # letter codes: F1-F4, S1-S4 (a season unless the digit starts a suit run), Rd Gd Wd, E S W N
        two = text[i : i + 2]
        if two in ("Rd", "Gd", "Wd"):
            add(INDEX[two], two, pos)
            i += 2
            continue
        if two in INDEX and INDEX[two] >= 34:
            nxt = text[i + 2] if i + 2 < n else ""
            if not (ch == "S" and (nxt.isdigit() or nxt in ("m", "p", "s", "z"))):
                if open_group:
                    raise NotationError("bonus tiles cannot be part of a set", two, pos)
                if win_pos:
                    raise NotationError("a bonus tile cannot be the winning tile", "+" + two, win_pos)
                add(INDEX[two], two, pos)
                i += 2
                continue
        if ch in "ESWN":
            add(INDEX[ch], ch, pos)
            i += 1
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] not in "[]{}+":
            j += 1
        raise NotationError("unknown tile", text[i:j] or ch, pos)
    if open_group:
        raise NotationError("set is not closed", open_group[0], open_group[1])
    if win_pos:
        raise NotationError("'+' must be followed by a tile", "+", win_pos)
    return tokens, groups


def parse_hand(text: str, *, waiting: bool = False) -> Hand:
    """Parse a hand in CONTRACT notation.

    With ``waiting=True`` the hand is a 13-tile hand (plus one per kong) with no winning tile,
    as ``mjcam waits`` takes it.

    >>> parse_hand("123m 456m 789m EEE 5p +5p").winning
    13
    >>> parse_hand("123m 456m 789m EEE 5p 0p")
    Traceback (most recent call last):
    ...
    scoring.notation.NotationError: unknown tile (0m/0p/0s are not Hong Kong tiles) '0p' at position 23
    """
    if not isinstance(text, str):
        raise NotationError("a hand must be given as text")
    tokens, groups = _tokenize(text)
    if not tokens:
        raise NotationError("empty hand")

    seen: Counter[int] = Counter()
    for t in tokens:
        seen[t.tile] += 1
        limit = 1 if is_bonus(t.tile) else 4
        if seen[t.tile] > limit:
            what = "second copy of bonus tile" if limit == 1 else "fifth copy of"
            raise NotationError(what, t.text, t.pos)

    melds: list[Meld] = []
    for gi, (bracket, start, end) in enumerate(groups):
        tiles = [t.tile for t in tokens if t.group == gi]
        text_of = text[start - 1 : end]
        kind = _meld_kind(tiles)
        if kind is None:
            raise NotationError("not a chow, pung or kong", text_of, start)
        if bracket == "{" and kind != "kong":
            raise NotationError("{...} is a concealed kong of four equal tiles", text_of, start)
        melds.append(Meld(kind, tuple(sorted(tiles)), concealed=bracket == "{"))

    wins = [t for t in tokens if t.winning]
    if len(wins) > 1:
        raise NotationError("more than one winning tile", "+" + wins[1].text, wins[1].pos - 1)
    concealed = tuple(sorted(t.tile for t in tokens if t.group is None and not is_bonus(t.tile)))
    bonus = tuple(sorted(t.tile for t in tokens if is_bonus(t.tile)))
    kongs = sum(1 for m in melds if m.kind == "kong")
    size = len(concealed) + 3 * len(melds)
    if waiting:
        if wins:
            raise NotationError("a waiting hand has no winning tile", "+" + wins[0].text, wins[0].pos - 1)
        if size != 13:
            raise NotationError(
                f"a waiting hand has 13 tiles plus one per kong, bonus tiles aside; this one has {size + kongs}"
            )
        return Hand(concealed, tuple(melds), bonus, None)
    if not wins and len(bonus) < 7:
        raise NotationError("no winning tile: mark it with '+', e.g. +9p")
    expected = (13, 14) if not wins else (14,)
    if size not in expected:
        raise NotationError(
            f"a winning hand has 14 tiles plus one per kong, bonus tiles aside; this one has {size + kongs}"
        )
    return Hand(concealed, tuple(melds), bonus, wins[0].tile if wins else None)


def format_tiles(tiles: list[int] | tuple[int, ...]) -> str:
    """Compact notation for a list of playable tiles: suit runs merged, honours repeated.

    >>> format_tiles([0, 1, 2, 9, 9, 27, 31, 31])
    '123m 11p E RdRd'
    """
    parts: list[str] = []
    ts = sorted(tiles)
    for s, suit in enumerate(SUITS):
        nums = [str(t - 9 * s + 1) for t in ts if 9 * s <= t < 9 * s + 9]
        if nums:
            parts.append("".join(nums) + suit)
    honours: dict[int, int] = Counter(t for t in ts if t >= 27)
    for t in sorted(honours):
        parts.append(code(t) * honours[t])
    return " ".join(parts)


def format_meld(m: Meld) -> str:
    inner = format_tiles(m.tiles).replace(" ", "")
    return "{" + inner + "}" if m.concealed else "[" + inner + "]"


def format_hand(hand: Hand) -> str:
    """Print a hand in CONTRACT notation; ``parse_hand`` reads it back to an equal Hand."""
    parts = [format_meld(m) for m in hand.melds]
    rest = list(hand.concealed)
    if hand.winning is not None:
        rest.remove(hand.winning)
    if rest:
        parts.append(format_tiles(rest))
    parts.extend(CODES[b] for b in hand.bonus)
    if hand.winning is not None:
        parts.append("+" + code(hand.winning))
    return " ".join(parts)
