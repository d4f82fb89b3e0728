"""mjcam: photograph a Hong Kong mahjong winning hand and get it scored.

>>> from mjcam import score
>>> score("[RdRdRd] [123s] [999s] 45s NN +6s", rules="hk-old-style", discarder="W", seat="S").fan
5

The subpackages are ``mjcam.scoring`` (pure Python), ``mjcam.vision`` and ``mjcam.models`` (the
shipped ONNX files). Installed, they sit inside this package; in a checkout of the source they are
the folders beside it (``scoring/``, ``vision/``, ``models/``), found through this package's path.
"""

import os as _os

__version__ = "0.2.0"

_checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(__path__[0], "scoring")) and \
        _os.path.isfile(_os.path.join(_checkout, "scoring", "__init__.py")):
    __path__.append(_checkout)  # a checkout: mjcam.scoring is ../scoring, and so on


def score(hand, **kwargs):
    """Score a hand given in notation; see :func:`mjcam.scoring.score`."""
    from .scoring import score as _score

    return _score(hand, **kwargs)


def recognize(photo):
    """Read the hand in a photo (a path or an RGB array); see :func:`mjcam.vision.recognize`."""
    from .vision import recognize as _recognize

    return _recognize(photo)


__all__ = ["__version__", "recognize", "score"]
