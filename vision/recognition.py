"""What the recogniser makes of a photo: the tiles read (:class:`TileRead`) and the hand proposed
(:class:`Recognition`), with their JSON (``mjcam recognize --json``) and the lines a person checks.

>>> Recognition("x.jpg", 10, 10, [TileRead("5m", 0.98, (1, 2, 3, 4))], [], None, []).to_json()["tiles"]
[{'code': '5m', 'confidence': 0.98, 'box': [1, 2, 3, 4], 'alternatives': [], 'group': None, 'orientation': 'upright'}]
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TileRead:
    code: str
    confidence: float
    box: tuple[float, float, float, float]  # pixels of the photo as a person sees it
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    group: int | None = None
    orientation: str = "upright"
    detection: float = 1.0  # the proposal stage's score
    #: the classifier's own confidence, before calibration (None: the same as ``confidence``); the
    #: choice between copies of a stretched photo weighs it, as it was tuned on it. Not in the JSON.
    raw: float | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box],
                "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in self.alternatives],
                "group": self.group, "orientation": self.orientation}


@dataclass
class Recognition:
    path: str | None
    width: int
    height: int
    tiles: list[TileRead]
    groups: list[dict]
    hand: str | None
    needs_confirmation: list[int]
    notes: list[str] = field(default_factory=list)
    winning: int | None = None
    #: how many times across and down the photo was squeezed before it was read (a photo stretched
    #: out of shape is read squeezed back; 1, 1: as it is). Not in the JSON: the boxes already
    #: are in the photo's own pixels.
    squeeze: tuple[float, float] = (1.0, 1.0)
    #: which way the standing tiles' tops point in the photo, by the which-way-up probe: up, down,
    #: left, right; None where it could not tell. In the JSON (``tops``) so the table app can tell whose
    #: hand a photo shows from where the phone sits; the tiles' order already follows it.
    tops: str | None = None
    #: whether ``tops`` is sure enough to say whose hand it is (the probe's evidence at least
    #: ``vision.layout.UP_SURE``): the table app proposes a winner, and the notes name which way the
    #: tiles stand, only then. In the JSON (``tops_sure``).
    tops_sure: bool = False
    #: the probe's evidence: ``{"log_odds", "tiles", "leaning"}`` (the standing tiles' summed down
    #: log-odds, how many, how many lean the way the sum does); None where it was not read
    up_evidence: dict | None = None
    #: no tile was set apart as the winning tile: ``winning`` is the last concealed tile, taken for it
    winning_guessed: bool = False
    #: the other plausible structures of the hand (a set laid apart that may be concealed, a pung that
    #: may be a kong with its fourth tile on top, ...): ``{"what": words, "hand": notation, "tiles":
    #: [positions]}`` each; :mod:`vision.trust` asks whether any is paid differently
    structures: list[dict] = field(default_factory=list)
    #: the seconds each stage took (vision.stages: load, find, read, lay out, group, propose), summed
    #: over the copies of the photo read. Not in the JSON.
    elapse: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict:
        return {"image": {"path": self.path, "width": self.width, "height": self.height},
                "tiles": [t.to_json() for t in self.tiles],
                "groups": [{"tiles": g["tiles"], "melded": g["melded"], "kind": g["kind"],
                            **({"evidence": g["evidence"]} if g.get("evidence") else {})} for g in self.groups],
                "hand": self.hand,
                "needs_confirmation": self.needs_confirmation,
                "winning": self.winning,
                "winning_guessed": self.winning_guessed,
                "tops": self.tops,
                "tops_sure": self.tops_sure,
                "up_evidence": self.up_evidence,
                "structures": self.structures,
                "notes": self.notes}

    @classmethod
    def from_json(cls, d: dict) -> "Recognition":
        """Back from :meth:`to_json` (or a batch record, which has the same keys)."""
        img = d.get("image") or {}
        tiles = [TileRead(t["code"], t["confidence"], tuple(t["box"]),
                          [(a["code"], a["confidence"]) for a in t.get("alternatives", [])],
                          t.get("group"), t.get("orientation", "upright")) for t in d.get("tiles") or []]
        return cls(img.get("path", d.get("path")), int(img.get("width", 0)), int(img.get("height", 0)), tiles,
                   list(d.get("groups") or []), d.get("hand"), list(d.get("needs_confirmation") or []),
                   list(d.get("notes") or []), d.get("winning"), tops=d.get("tops"), tops_sure=bool(d.get("tops_sure")),
                   up_evidence=d.get("up_evidence"),
                   winning_guessed=bool(d.get("winning_guessed")), structures=list(d.get("structures") or []))

    def layout(self) -> str:
        """The tiles as laid out, set by set, each doubtful tile marked ``?`` with its number (``2m?#2``:
        the "tile 2" a check line names, numbered as in the annotated photo) — what a person checks."""
        flagged = set(self.needs_confirmation)
        parts = []
        for g in self.groups:
            codes = " ".join(self.tiles[p].code + (f"?#{p + 1}" if p in flagged else "") for p in g["tiles"])
            if g["kind"] == "stray":
                parts.append(f"· left out: {codes}")
                continue
            if g["kind"] == "kong" and len(g["tiles"]) == 3:
                codes += " +1 hidden"  # the tile under its fourth, laid on top
            parts.append(f"[{codes}]" if g["melded"] else f"({codes})" if g["kind"] == "bonus" else codes)
        return "  ".join(parts)

    def doubts(self) -> list[str]:
        """One line per tile to check: its place, reading and the likeliest alternatives (other
        codes only, none under half a percent)."""
        out = []
        for p in self.needs_confirmation:
            t = self.tiles[p]
            alts = ", ".join(f"{c} {q:.0%}" for c, q in [(c, q) for c, q in t.alternatives if c != t.code
                                                          and q >= 0.005][:2])
            out.append(f"tile {p + 1}: {t.code} ({t.confidence:.0%}" + (f"; or {alts})" if alts else ")"))
        return out
