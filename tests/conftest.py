"""Helpers shared by the tests: a real `mjcam serve` on loopback."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from benchmarks.serving import free_port, serve  # noqa: E402,F401  (the tests' server helpers)
