"""How a hand was won: the situation of this win, apart from the tiles and the rules."""

from __future__ import annotations

from dataclasses import dataclass

from .tiles import SEATS


class ContextError(ValueError):
    """An impossible combination of winning conditions (a usage error, exit 2)."""


@dataclass(frozen=True)
class WinContext:
    """The situation of one win.

    ``discarder`` is the seat whose tile was taken (for robbing a kong, the player whose kong
    was robbed); None means self-drawn. ``responsible`` is a seat that bears the whole payment
    (包), or None.

    >>> WinContext(discarder="S").self_drawn
    False
    >>> WinContext(seat="E", discarder="E")
    Traceback (most recent call last):
    ...
    scoring.context.ContextError: the winner (E) cannot be the discarder
    """

    discarder: str | None = None
    seat: str = "E"
    round: str = "E"
    dealer: str = "E"
    flowers_in_play: bool = True
    last_tile: bool = False
    kong_replacement: bool = False
    double_kong: bool = False
    robbing_kong: bool = False
    heavenly: bool = False
    earthly: bool = False
    man: bool = False
    last_of_kind: bool = False
    ready: bool = False
    responsible: str | None = None

    def __post_init__(self) -> None:
        for name in ("seat", "round", "dealer"):
            if getattr(self, name) not in SEATS:
                raise ContextError(f"{name} must be one of E S W N, not {getattr(self, name)!r}")
        for name in ("discarder", "responsible"):
            v = getattr(self, name)
            if v is not None and v not in SEATS:
                raise ContextError(f"{name} must be one of E S W N, not {v!r}")
        if self.discarder == self.seat:
            raise ContextError(f"the winner ({self.seat}) cannot be the discarder")
        if self.responsible == self.seat:
            raise ContextError(f"the winner ({self.seat}) cannot be the responsible player")
        if (self.kong_replacement or self.double_kong) and not self.self_drawn:
            raise ContextError("a win on a kong replacement tile is self-drawn: drop --discarder")
        if self.robbing_kong and self.self_drawn:
            raise ContextError("robbing a kong needs --discarder SEAT (the player whose kong was robbed)")
        if self.heavenly and (self.seat != self.dealer or not self.self_drawn):
            raise ContextError("a heavenly hand is the dealer's self-drawn win on the deal")
        if self.earthly and (self.seat == self.dealer or self.discarder != self.dealer):
            raise ContextError("an earthly hand is a non-dealer's win on the dealer's first discard")
        if self.man and self.seat == self.dealer:
            raise ContextError("the blessing of man is a non-dealer's win")

    @property
    def self_drawn(self) -> bool:
        return self.discarder is None

    @property
    def flags(self) -> int:
        """The winning conditions that are set, one bit per name of :data:`FLAGS` (made once).

        >>> WinContext(last_tile=True, ready=True).flags
        65
        """
        bits = self.__dict__.get("_flags")
        if bits is None:
            bits = self.__dict__["_flags"] = sum(1 << i for i, name in enumerate(FLAGS) if getattr(self, name))
        return bits


FLAGS = ("last_tile", "robbing_kong", "heavenly", "earthly", "man", "last_of_kind", "ready",
         "kong_replacement", "double_kong")
