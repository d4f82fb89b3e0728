"""mjcam's vision pipeline: loading photos, finding and classifying tiles, grouping them into a
hand. Nothing heavy happens at import; models load on first use."""

from .io import ImageError, load_image


def recognize(photo):
    """Read the hand in a photo (a path or an RGB array); see :func:`vision.pipeline.recognize`."""
    from .pipeline import recognize as _recognize

    return _recognize(photo)


__all__ = ["ImageError", "load_image", "recognize"]
