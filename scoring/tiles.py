"""Tile codes and their integer indices.

Playable tiles are 0..33: characters 1m-9m (0-8), dots 1p-9p (9-17), bamboo 1s-9s (18-26),
winds E S W N (27-30) and dragons Rd Gd Wd (31-33). Bonus tiles are 34..41: flowers F1-F4
and seasons S1-S4; a bonus tile's number is the seat it belongs to (1 East ... 4 North).

>>> code(4), index("5m"), index("Rd"), code(34), is_bonus(index("S4"))
('5m', 4, 31, 'F1', True)
>>> is_terminal(index("9s")), is_honour(index("E")), suit_of(index("3p")), number_of(index("3p"))
(True, True, 'p', 3)
>>> seat_number("S"), wind_index("N")
(2, 30)
"""

from __future__ import annotations

SUITS = ("m", "p", "s")
WINDS = ("E", "S", "W", "N")
DRAGONS = ("Rd", "Gd", "Wd")
FLOWERS = ("F1", "F2", "F3", "F4")
SEASONS = ("S1", "S2", "S3", "S4")

CODES: tuple[str, ...] = (
    tuple(f"{n}{s}" for s in SUITS for n in range(1, 10)) + WINDS + DRAGONS + FLOWERS + SEASONS
)
INDEX = {c: i for i, c in enumerate(CODES)}

N_PLAYABLE = 34
FIRST_WIND, FIRST_DRAGON, FIRST_FLOWER, FIRST_SEASON = 27, 31, 34, 38
WIND_TILES = frozenset(range(27, 31))
DRAGON_TILES = frozenset(range(31, 34))
HONOURS = frozenset(range(27, 34))
TERMINALS = frozenset(i for i in range(27) if i % 9 in (0, 8))
ORPHANS = TERMINALS | HONOURS
SEATS = WINDS  # seats are named by their wind

# tenhou's honour order: 1z..7z = E S W N Wd Gd Rd
TENHOU_HONOURS = ("E", "S", "W", "N", "Wd", "Gd", "Rd")


def code(i: int) -> str:
    """The contract code of tile index ``i``."""
    return CODES[i]


def index(c: str) -> int:
    """The index of tile code ``c`` (contract codes only; see ``notation`` for aliases)."""
    return INDEX[c]


def is_honour(i: int) -> bool:
    return 27 <= i < 34


def is_terminal(i: int) -> bool:
    return i < 27 and i % 9 in (0, 8)


def is_bonus(i: int) -> bool:
    return i >= 34


def suit_of(i: int) -> str | None:
    """'m', 'p' or 's' for a suit tile, None for an honour or bonus tile."""
    return SUITS[i // 9] if i < 27 else None


def number_of(i: int) -> int | None:
    """1..9 for a suit tile, None otherwise."""
    return i % 9 + 1 if i < 27 else None


def wind_index(seat: str) -> int:
    """Tile index of a seat or round wind given as E/S/W/N.

    >>> wind_index("W")
    29
    """
    return FIRST_WIND + WINDS.index(seat)


def seat_number(seat: str) -> int:
    """1 for East ... 4 for North (a bonus tile's own seat number)."""
    return WINDS.index(seat) + 1
