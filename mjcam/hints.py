"""Hints added to the command line's error messages: what the user most likely meant.

>>> hint("unknown tile 'eee' at position 1", "eee 123m 456p 789s NN +N")
"unknown tile 'eee' at position 1: tile codes are case-sensitive, did you mean 'EEE'?"
>>> hint("a winning hand has 14 tiles plus one per kong, bonus tiles aside; this one has 16",
...      "1111p 234m 567s 88s EEE +E")
'a winning hand has 14 tiles plus one per kong, bonus tiles aside; this one has 16: four 1p make a kong, marked [1111p] if melded or {1111p} if concealed'
"""

from __future__ import annotations

import re

from mjcam.scoring.tiles import CODES

_CASED = {c.lower(): c for c in CODES}
_HONOUR_WORDS = {"e": "E", "s": "S", "w": "W", "n": "N", "rd": "Rd", "gd": "Gd", "wd": "Wd"}


def _recased(token: str) -> str | None:
    """The token with its letters in the case the notation wants, where that makes tiles.

    >>> [_recased(t) for t in ("eee", "rdrd", "1M", "s1", "f2", "xyz")]
    ['EEE', 'RdRd', '1m', 'S1', 'F2', None]
    """
    low = token.lower()
    if low in _CASED:
        return _CASED[low] if _CASED[low] != token else None
    if re.fullmatch(r"[1-9]+[mps]", low):
        return low if low != token else None
    for word, code in sorted(_HONOUR_WORDS.items(), key=lambda kv: -len(kv[0])):
        if len(low) % len(word) == 0 and low == word * (len(low) // len(word)):
            return code * (len(low) // len(word))
    return None


def _fours(text: str) -> list[str]:
    """Codes of which the concealed part (outside any [...] or {...}) holds four."""
    outside = re.sub(r"\[[^\]]*\]|\{[^}]*\}", " ", text)
    counts: dict[str, int] = {}
    for digits, suit, honour in re.findall(r"(\d+)([mps])|([FS][1-4]|Rd|Gd|Wd|[ESWN])", outside):
        for c in ([d + suit for d in digits] if digits else [honour]):
            counts[c] = counts.get(c, 0) + 1
    return [c for c, n in counts.items() if n == 4 and c in CODES]


def hint(message: str, text: str) -> str:
    """``message`` (a notation error's) with a hint where one fits the hand ``text``."""
    m = re.match(r"(?:unknown tile|digits need a suit letter[^']*) '([^']*)'", message)
    if m:
        fixed = _recased(m.group(1))
        return f"{message}: tile codes are case-sensitive, did you mean '{fixed}'?" if fixed else message
    if "tiles plus one per kong" in message:
        fours = _fours(text)
        if fours:
            c = fours[0]
            kong = c[0] * 4 + c[1] if c[0].isdigit() else c * 4
            return f"{message}: four {c} make a kong, marked [{kong}] if melded or {{{kong}}} if concealed"
    return message
