"""Readers for labelled tile photos, crop extraction, and synthetic tile images."""
