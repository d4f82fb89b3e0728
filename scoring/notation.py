"""The hand notation (docs/reference.md): parse it into a :class:`Hand` and print it back.

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
>>> [m.tile for m in h.melds], sorted(parse_hand("123m 456m 789m EEE 5p +5p").present)[-2:]
([0, 31, 26], [13, 27])
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from .tiles import CODES, INDEX, SUITS, TENHOU_HONOURS, code


class _once:
    """A cached attribute without functools.cached_property's lock (Python 3.11 takes one on every
    first access, which costs more than the value for these small tuples)."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class NotationError(ValueError):
    """A hand that cannot be read. ``token`` and ``position`` (1-based) say where: the bad token,
    or for a fault of the whole hand (too many tiles, no winning tile) the hand as written and
    where it starts; the message names a position only for a bad token (``whole``: a fault of the
    whole hand, where no one place is wrong)."""

    def __init__(self, message: str, token: str = "", position: int = 0, whole: bool = False):
        self.reason = message  # what is wrong, without the token and position
        self.token = token
        self.position = position
        self.whole = whole
        where = f" at position {position}" if position and not whole else ""
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
        return list(self.counts)

    @_once
    def counts(self) -> tuple[int, ...]:
        """:meth:`tile_counts` as a tuple, computed once."""
        if not self.melds:
            return self.concealed_counts
        counts = list(self.concealed_counts)
        for m in self.melds:
            for t in m.tiles:
                counts[t] += 1
        return tuple(counts)

    @_once
    def concealed_counts(self) -> tuple[int, ...]:
        """Counts of the 34 playable tiles in the concealed part (the winning tile included)."""
        counts = [0] * 34
        for t in self.concealed:
            counts[t] += 1
        return tuple(counts)

    @_once
    def present(self) -> frozenset[int]:
        """The playable tiles the hand holds at least once."""
        c = self.counts
        return frozenset(t for t in range(34) if c[t])


def meld_kind(tiles: list[int]) -> str | None:
    """'chow', 'pung' or 'kong' for the tiles of one set, None when they make no set.

    >>> meld_kind([2, 0, 1]), meld_kind([31] * 4), meld_kind([7, 8, 9])
    ('chow', 'kong', None)
    """
    t = sorted(tiles)
    if len(set(t)) == 1 and len(t) in (3, 4):
        return "pung" if len(t) == 3 else "kong"
    if len(t) == 3 and t[0] < 27 and t[1] == t[0] + 1 and t[2] == t[0] + 2 and t[0] // 9 == t[2] // 9:
        return "chow"
    return None


_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<open>[\[{])|(?P<close>[\]}])|(?P<plus>\+)|(?P<run>\d+[mpsz])"
    r"|(?P<nosuit>\d+[A-Za-z]?)|(?P<bonus>F[1-4]|S[1-4](?![0-9mpsz]))|(?P<dragon>[RGW]d)"
    r"|(?P<wind>[ESWN])|(?P<bad>[^\s\[\]{}+]+)"
)
_RUN_TILE = {f"{d}{s}": (INDEX[f"{d}{s}"] if s != "z" else INDEX[TENHOU_HONOURS[int(d) - 1]])
             for s in "mpsz" for d in "123456789" if s != "z" or d <= "7"}
_CLOSE = {"[": "]", "{": "}"}


def _tokenize(text: str) -> tuple[list[tuple[int, str, int, int, bool]], list[tuple[str, int, int]]]:
    """Split ``text`` into tile tokens (tile, text, position, group or -1, winning) and groups
    (bracket, start position, end position)."""
    tokens: list[tuple[int, str, int, int, bool]] = []
    groups: list[tuple[str, int, int]] = []
    open_br, open_pos = "", 0
    win_pos = 0  # position of a pending '+'
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        tok = m.group()
        pos = m.start() + 1
        if kind == "run":
            if win_pos and len(tok) > 2:
                raise NotationError("'+' must mark a single tile", "+" + tok, win_pos)
            suit = tok[-1]
            gi = len(groups) if open_br else -1
            for k, d in enumerate(tok[:-1]):
                tile = _RUN_TILE.get(d + suit)
                if tile is None:
                    why = "honours are 1z..7z" if suit == "z" else "0m/0p/0s are not Hong Kong tiles"
                    raise NotationError(f"unknown tile ({why})", d + suit, pos + k)
                tokens.append((tile, d + suit, pos + k, gi, bool(win_pos)))
                win_pos = 0
            continue
        if kind in ("wind", "dragon", "bonus"):
            if kind == "bonus":
                if open_br:
                    if not _closes(text, pos):
                        raise NotationError("set is not closed", open_br, open_pos)
                    raise NotationError("bonus tiles cannot be part of a set", tok, pos)
                if win_pos:
                    raise NotationError("a bonus tile cannot be the winning tile", "+" + tok, win_pos)
            tokens.append((INDEX[tok], tok, pos, len(groups) if open_br else -1, bool(win_pos)))
            win_pos = 0
            continue
        if kind == "plus":
            if win_pos:
                raise NotationError("'+' must be followed by a tile", "+", win_pos)
            if open_br:
                if not _closes(text, pos):
                    raise NotationError("set is not closed", open_br, open_pos)
                raise NotationError("the winning tile belongs to the concealed part, not a set", "+", pos)
            win_pos = pos
            continue
        if kind == "open":
            if open_br:
                inner_end = next((i for i in range(pos, len(text)) if text[i] in "]}"), None)
                if inner_end is None or not _closes(text, inner_end + 2):
                    raise NotationError("set is not closed", open_br, open_pos)
                raise NotationError("a set cannot open inside another set", tok, pos)
            if win_pos:
                raise NotationError("'+' must be followed by a tile", "+", win_pos)
            open_br, open_pos = tok, pos
            continue
        if kind == "close":
            if not open_br:
                raise NotationError("closing bracket without an opening one", tok, pos)
            if _CLOSE[open_br] != tok:
                raise NotationError("mismatched brackets", open_br + "..." + tok, open_pos)
            groups.append((open_br, open_pos, pos))
            open_br = ""
            continue
        if kind == "nosuit":
            raise NotationError("digits need a suit letter m, p or s after them (honours are E S W N Rd Gd Wd, or 1z to 7z) in", tok, pos)
        raise NotationError("unknown tile", tok, pos)
    if open_br:
        raise NotationError("set is not closed", open_br, open_pos)
    if win_pos:
        raise NotationError("'+' must be followed by a tile", "+", win_pos)
    return tokens, groups


def _closes(text: str, pos: int) -> bool:
    """Whether the next bracket at or after 1-based ``pos`` closes a set (so the set open there
    does close; otherwise it is the unclosed set that is wrong, not what stands in it)."""
    for ch in text[pos - 1:]:
        if ch in "[{":
            return False
        if ch in "]}":
            return True
    return False


def _whole(text: str) -> tuple[str, int]:
    """The hand as written and where it starts: the token of an error about the whole hand."""
    stripped = text.strip()
    return stripped, (text.index(stripped[0]) + 1) if stripped else 1


def parse_hand(text: str, *, waiting: bool = False) -> Hand:
    """Parse a hand in mjcam's notation (docs/reference.md).

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
        raise NotationError("a hand must be given as text, not", type(text).__name__)
    if not waiting:
        hand = _parse_plain(text)
        if hand is not None:
            return hand
    return _parse_full(text, waiting)


def _parse_full(text: str, waiting: bool) -> Hand:
    """:func:`parse_hand` token by token, with an error for anything malformed."""
    tokens, groups = _tokenize(text)
    if not tokens:
        raise NotationError("empty hand", *_whole(text), whole=True)

    seen = [0] * 42
    for tile, tok, pos, _, _ in tokens:
        seen[tile] += 1
        if seen[tile] > 4 or (tile >= 34 and seen[tile] > 1):
            what = "second copy of bonus tile" if tile >= 34 else "fifth copy of"
            raise NotationError(what, tok, pos)

    melds: list[Meld] = []
    for gi, (bracket, start, end) in enumerate(groups):
        tiles = [t[0] for t in tokens if t[3] == gi]
        text_of = text[start - 1 : end]
        kind = meld_kind(tiles)
        if kind is None:
            raise NotationError("not a chow, pung or kong", text_of, start)
        if bracket == "{" and kind != "kong":
            raise NotationError("{...} is a concealed kong of four equal tiles", text_of, start)
        melds.append(Meld(kind, tuple(sorted(tiles)), concealed=bracket == "{"))

    wins = [t for t in tokens if t[4]]
    if len(wins) > 1:
        raise NotationError("more than one winning tile", "+" + wins[1][1], wins[1][2] - 1)
    concealed = tuple(sorted(t[0] for t in tokens if t[3] < 0 and t[0] < 34))
    bonus = tuple(sorted(t[0] for t in tokens if t[0] >= 34))
    kongs = sum(1 for m in melds if m.kind == "kong")
    size = len(concealed) + 3 * len(melds)
    # with kongs the count asked for is not 13 or 14: say what it is
    need = f" (with {kongs} kong{'s' if kongs > 1 else ''}, {{}} are needed)" if kongs else ""
    fourteen = f"{14 + kongs}" if wins else f"{13 + kongs} or {14 + kongs}"  # (no winning tile: 7+ bonus)
    if waiting:
        if wins:
            raise NotationError("a waiting hand has no winning tile", "+" + wins[0][1], wins[0][2] - 1)
        if size != 13:
            raise NotationError(
                f"a waiting hand has 13 tiles plus one per kong, bonus tiles aside; this one has {size + kongs}"
                f"{need.format(13 + kongs)} in",
                *_whole(text), whole=True)
        return Hand(concealed, tuple(melds), bonus, None)
    if not wins and len(bonus) < 7:
        raise NotationError("no winning tile (mark it with '+', e.g. +9p) in", *_whole(text), whole=True)
    expected = (13, 14) if not wins else (14,)
    if size not in expected:
        raise NotationError(
            f"a winning hand has 14 tiles plus one per kong, bonus tiles aside; this one has {size + kongs}"
            f"{need.format(fourteen)} in",
            *_whole(text), whole=True)
    return Hand(concealed, tuple(melds), bonus, wins[0][0] if wins else None)


_PLAIN_TILES = re.compile(r"(?:[1-9]+[mps]|[1-7]+z|[RGW]d|[ESWN])+")
_PLAIN_PART = re.compile(r"([1-9]+)([mpsz])|([RGW]d|[ESWN])")  # a dragon before the W wind
_PLAIN_ONE = re.compile(r"[1-9][mps]|[1-7]z|[RGW]d|[ESWN]")
_PLAIN_BONUS = re.compile(r"[FS][1-4]")
_PLAIN: dict[str, tuple | None] = {}
PLAIN_BOUND = 8192  # tokens remembered before the memo starts again


def _plain_tiles(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for m in _PLAIN_PART.finditer(text):
        if m.group(3):
            out.append(INDEX[m.group(3)])
        else:
            suit = m.group(2)
            out.extend(_RUN_TILE[d + suit] for d in m.group(1))
    return tuple(out)


def _plain_token(tok: str) -> tuple | None:
    """One whitespace-separated token of a well-formed hand: ('tiles', tiles), ('win', tile),
    ('bonus', tile) or ('meld', Meld); None for anything else (the full tokenizer then reads the
    hand and reports what is wrong)."""
    if _PLAIN_TILES.fullmatch(tok):
        return ("tiles", _plain_tiles(tok))
    if tok[0] == "+" and _PLAIN_ONE.fullmatch(tok, 1):
        return ("win", _plain_tiles(tok[1:])[0])
    if _PLAIN_BONUS.fullmatch(tok):
        return ("bonus", INDEX[tok])
    if len(tok) > 2 and _CLOSE.get(tok[0]) == tok[-1] and _PLAIN_TILES.fullmatch(tok, 1, len(tok) - 1):
        tiles = _plain_tiles(tok[1:-1])
        kind = meld_kind(list(tiles))
        if kind is not None and (tok[0] == "[" or kind == "kong"):
            return ("meld", Meld(kind, tuple(sorted(tiles)), concealed=tok[0] == "{"))
    return None


def _parse_plain(text: str) -> Hand | None:
    """The common case fast: a winning hand written as whitespace-separated runs, honours, sets
    without inner spaces, bonus tiles and one ``+T``. Tokens are read once and remembered. Returns
    None for anything else, including every malformed hand, which :func:`parse_hand` then reads
    (and reports) in full; both give equal Hands."""
    concealed: list[int] = []
    melds: list[Meld] = []
    bonus: list[int] = []
    win = None
    for tok in text.split():
        got = _PLAIN.get(tok)
        if got is None:
            if tok in _PLAIN:
                return None
            if len(_PLAIN) > PLAIN_BOUND:
                _PLAIN.clear()
            got = _PLAIN[tok] = _plain_token(tok)
            if got is None:
                return None
        kind, value = got
        if kind == "tiles":
            concealed.extend(value)
        elif kind == "win":
            if win is not None:
                return None
            win = value
            concealed.append(value)
        elif kind == "meld":
            melds.append(value)
        else:
            bonus.append(value)
    if win is None or len(concealed) + 3 * len(melds) != 14:
        return None
    concealed.sort()
    every = sorted(concealed + [t for m in melds for t in m.tiles]) if melds else concealed
    if any(map(_same, every, every[4:])):  # a fifth copy
        return None
    if bonus:
        if len(set(bonus)) != len(bonus):
            return None
        bonus.sort()
    hand = _new_object(Hand)  # the frozen dataclass without its __init__ (one object.__setattr__ per field)
    hand.__dict__.update(concealed=tuple(concealed), melds=tuple(melds), bonus=tuple(bonus), winning=win)
    return hand


_same = int.__eq__
_new_object = object.__new__


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
    """Print a hand in mjcam's notation; ``parse_hand`` reads it back to an equal Hand."""
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
