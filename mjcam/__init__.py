"""mjcam: photograph a Hong Kong mahjong winning hand and get it scored."""

__version__ = "0.1.0"
