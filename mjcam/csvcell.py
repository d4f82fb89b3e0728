"""CSV cells a spreadsheet shows as text, never runs.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (or their full-width
forms) is taken by Excel, LibreOffice and Google Sheets for a formula: a player named
``=cmd|' /C calc'!A0`` would run when the export is opened. Such a cell is written with a ``'``
in front, which the spreadsheets show as text; so is one that starts with ``'`` itself, so that
:func:`uncell` gives back exactly what was written. Numbers are written as they are.

>>> cell("=cmd|' /C calc'!A0"), cell("Ann"), cell(-16), cell("'quoted")
("'=cmd|' /C calc'!A0", 'Ann', -16, "''quoted")
>>> uncell(cell("-3 points")), uncell(cell("'quoted")), uncell("Ann")
('-3 points', "'quoted", 'Ann')
"""

from __future__ import annotations

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠", "'")


def cell(value):
    """``value`` as a CSV cell no spreadsheet runs (text only; other values unchanged)."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def uncell(text: str) -> str:
    """The text a cell written by :func:`cell` held."""
    return text[1:] if text.startswith("'") else text
