"""mjcam's vision pipeline: loading photos, classifying tiles. Nothing heavy happens at import."""

from .io import ImageError, load_image

__all__ = ["ImageError", "load_image"]
