"""The classifier's classes: the 42 tile codes (docs/reference.md), then 'back' and 'not-a-tile'."""

from mjcam.scoring.tiles import CODES

BACK = "back"
NOT_A_TILE = "not-a-tile"
CLASSES: tuple[str, ...] = CODES + (BACK, NOT_A_TILE)
CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}
