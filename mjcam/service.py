"""From a photo to a scored hand: the one way the command line, batch and the table app do it.

- :class:`WinFlags`: how the hand was won (the discarder or self-drawn, the seat, the prevailing
  wind, the dealer, whether flowers are in play, the yes/no winning conditions and who pays for
  everyone). The one list of them: the command line's options, batch's options and the table
  app's flags (:data:`CONDITIONS`) are all made from it; the scoring engine checks them
  (:class:`mjcam.scoring.WinContext`).
- :func:`read_photo`: a photo read by the recogniser, as a :class:`Reading` whose proposed hand
  is a :class:`mjcam.scoring.Hand`, parsed once.
- :func:`score_hand`: a hand (notation or a Hand) scored under a preset, the win flags and house
  rules; :func:`judge`: whether a reading may be scored without a person, under one or more presets.

>>> WinFlags(discarder="W", seat="S", last_tile=True).situation()["last_tile"]
True
>>> score_hand("[RdRdRd] [123s] [999s] 45s NN +6s", "hk-old-style", WinFlags(discarder="W", seat="S")).fan
5
>>> CONDITIONS[:3]
('last_tile', 'kong_replacement', 'double_kong')
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property

from mjcam.scoring import Hand, RulePreset, ScoreResult, parse_hand, score


def _condition(text: str):
    """A yes/no winning condition (off unless given); ``text`` says what it means."""
    return field(default=False, metadata={"help": text})


@dataclass(frozen=True)
class WinFlags:
    """How the hand was won. ``discarder`` is the seat whose tile was taken (for robbing a kong,
    the player whose kong was robbed), None for a self-drawn win; ``responsible`` a seat that pays
    for everyone (包), or None."""

    discarder: str | None = None
    seat: str = "E"
    round: str = "E"
    dealer: str = "E"
    flowers_in_play: bool = True
    last_tile: bool = _condition("won on the last tile of the wall (drawn or discarded)")
    kong_replacement: bool = _condition("won on a kong's replacement tile")
    double_kong: bool = _condition("won on the replacement after two kongs in a row")
    robbing_kong: bool = _condition("won by robbing a kong (--discarder is the robbed player)")
    heavenly: bool = _condition("dealer wins on the deal")
    earthly: bool = _condition("won on the dealer's first discard")
    man: bool = _condition("non-dealer wins in the first go-around")
    last_of_kind: bool = _condition("the winning tile was the last of its kind")
    ready: bool = _condition("a ready hand was declared at the start")
    responsible: str | None = None

    def situation(self) -> dict:
        """The flags as :func:`mjcam.scoring.score` takes them (keywords)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: the yes/no winning conditions, in order: ``--last-tile`` ... on the command line, ``flags`` in
#: the table app
CONDITIONS = tuple(f.name for f in fields(WinFlags) if "help" in f.metadata)


def conditions_help() -> list[tuple[str, str]]:
    """(name, what it means) of each of :data:`CONDITIONS`."""
    return [(f.name, f.metadata["help"]) for f in fields(WinFlags) if "help" in f.metadata]


def score_hand(hand: str | Hand, rules: str | RulePreset = "hk-old-style", flags: WinFlags = WinFlags(),
               house: dict | None = None) -> ScoreResult:
    """``hand`` scored under ``rules`` (a preset id, or a preset with house rules applied), won as
    ``flags`` say, with the ``house`` rules (``config``, ``min_fan``, ``cap``, ``table``,
    ``payment``; None: the preset's). Raises as :func:`mjcam.scoring.score` does."""
    return score(hand, rules, **(house or {}), **flags.situation())


@dataclass
class Reading:
    """A photo read: ``image``, the picture as decoded (at most the recogniser's working side
    long; what an annotated picture is drawn on) and ``recognition``, what the recogniser made of
    it (:class:`mjcam.vision.recognition.Recognition`)."""

    image: object
    recognition: object

    @cached_property
    def hand(self) -> Hand | None:
        """The proposed hand, parsed once; None when no complete hand could be written."""
        text = self.recognition.hand
        return parse_hand(text) if text else None


def read_photo(path: str, *, annotate: str | None = None, recognizer=None, decode=None) -> Reading:
    """The photo at ``path`` read by ``recognizer`` (default: the shipped models, loaded once per
    process). ``decode(path, side, reduce=1)`` gives the picture, at most ``side`` pixels long (or
    reduced ``reduce`` times), and the photo's own size (default :func:`mjcam.vision.io.load_photo`;
    the table app decodes on a thread of its own); where the tiles come out small the recogniser
    decodes the photo again with it, at more pixels. With ``annotate``, the picture with the
    reading drawn on it is written there.
    Raises :class:`mjcam.vision.io.ImageError` for a photo that cannot be read or written, and
    :class:`mjcam.vision.classify.ModelError` where the models cannot be loaded."""
    from mjcam.vision.io import load_photo
    from mjcam.vision.locate import WORK_SIDE
    from mjcam.vision.pipeline import default_recognizer

    recognizer = recognizer or default_recognizer()
    image, size = (decode or load_photo)(path, getattr(recognizer, "work_side", WORK_SIDE))
    reading = Reading(image, recognizer.read(image, size, path, decode=decode or load_photo))
    if annotate:
        from mjcam.vision.annotate import save_annotated

        save_annotated(annotate, image, reading.recognition)
    return reading


def judge(recognition, rules=("hk-old-style",), flags: WinFlags = WinFlags(), house: dict | None = None):
    """Whether a reading may be scored without a person (:func:`mjcam.vision.trust.check`) under
    each preset in ``rules`` (ids): sure only where sure under all of them, each doubt said once."""
    from mjcam.vision.trust import Trust, check

    rules = (rules,) if isinstance(rules, str) else rules
    options = {**(house or {}), **flags.situation()}
    verdicts = [check(recognition, rid, **options) for rid in rules]
    if len(verdicts) == 1:
        return verdicts[0]
    doubts = list({d.message: d for v in verdicts for d in v.doubts}.values())
    return Trust(not doubts, doubts, max(v.readings for v in verdicts), verdicts[0].score)
