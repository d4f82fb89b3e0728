"""mjcam's scoring engine: Hong Kong mahjong hands under five rule presets. Pure Python.

>>> from mjcam.scoring import score
>>> result = score("[RdRdRd] [123s] [999s] 45s NN +6s", rules="hk-old-style", discarder="W", seat="S")
>>> result.fan, result.points, result.payments["S"]
(5, 16, 64)
"""

from .context import ContextError, WinContext
from .decompose import Arrangement, Group, arrangements
from .engine import PatternScore, ScoreResult, resolve_preset, score
from .notation import Hand, Meld, NotationError, format_hand, parse_hand
from .patterns import PATTERNS
from .presets import PRESET_IDS
from .rules import ConfigError, RulePreset, load_preset
from .waits import waits

__all__ = [
    "Arrangement", "ConfigError", "ContextError", "Group", "Hand", "Meld", "NotationError",
    "PATTERNS", "PRESET_IDS", "PatternScore", "RulePreset", "ScoreResult", "WinContext",
    "arrangements", "format_hand", "load_preset", "parse_hand", "resolve_preset", "score", "waits",
]
