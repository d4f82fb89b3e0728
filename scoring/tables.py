"""Fan -> points tables of the rule books.

>>> [points("traditional", f) for f in (0, 3, 4, 6, 7, 10, 13)]
[1, 8, 16, 16, 32, 64, 64]
>>> points("simplified", 2) is None, points("simplified", 5)
(True, 2)
>>> points("canton", 9), points("canton", 14), points("6-9-12", 7), points("6-9-12", 25)
(96, 384, 74, 1024)
"""

from __future__ import annotations

_CANTON = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384)
_SIX_NINE_TWELVE = (1, 2, 4, 8, 16, 32, 64, 74, 84, 128, 138, 148, 256, 266, 276, 512, 522, 532,
                    542, 552, 1024)

TABLES = {
    "traditional": "0:1 1:2 2:4 3:8 4-6:16 7-9:32 10+:64 (the Old Style page, the Wikipedia rules)",
    "simplified": "3:1 4-6:2 7-9:4 10+:8, nothing below 3 (the Wikipedia rules)",
    "canton": "0:1 1:2 2:4 3:8 4:16 5:24 6:32 7:48 8:64 9:96 10:128 11:192 12:256 13+:384 "
              "(the Wikipedia rules' Canton discard column = the Scoring Guide = half-spicy 半辣上)",
    "6-9-12": "0:1 ... 6:64 7:74 8:84 9:128 ... 12:256 ... 15:512 ... 20+:1024 (Four Winds' Chinese New Style)",
    "fan": "points equal fan (the default where a rule book gives no table)",
    "doubling": "2^fan, no limit (the Wikipedia rules' 'most extreme of styles')",
}


def points(table: str, fan: int) -> int | None:
    """Base points for ``fan`` under ``table``; None where the table pays nothing (not a win)."""
    if table == "traditional":
        return (1, 2, 4, 8, 16, 16, 16, 32, 32, 32, 64)[min(fan, 10)]
    if table == "simplified":
        return None if fan < 3 else (1, 2, 2, 2, 4, 4, 4, 8)[min(fan, 10) - 3]
    if table == "canton":
        return _CANTON[min(fan, 13)]
    if table == "6-9-12":
        return _SIX_NINE_TWELVE[min(fan, 20)]
    if table == "fan":
        return fan
    if table == "doubling":
        return 2 ** fan
    raise KeyError(table)
