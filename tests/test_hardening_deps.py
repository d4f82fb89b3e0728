"""The dependencies' bounds: every one has a ceiling (the next major version is untested), and the
floors leave out releases with known advisories."""

import os
import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _requirements() -> dict[str, Requirement]:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        deps = tomllib.load(fh)["project"]["dependencies"]
    return {Requirement(d).name.lower(): Requirement(d) for d in deps}


def test_every_dependency_has_a_ceiling():
    for name, req in _requirements().items():
        assert any(s.operator in ("<", "<=", "==", "~=") for s in req.specifier), f"{name} has no upper bound"


@pytest.mark.parametrize("name, refused, allowed", [
    ("pillow", ["10.0.0", "10.4.0", "11.2.1", "14.0.0"], ["11.3.0", "13.0.0"]),
    ("opencv-python-headless", ["4.8.0.76", "5.0.0.93"], ["4.8.1.78", "4.14.0.94"]),
    ("numpy", ["3.0.0"], ["1.26.4", "2.4.6"]),
    ("onnxruntime", ["2.0.0"], ["1.16.0", "1.32.0"]),
    ("starlette", ["0.40.0", "0.49.0", "2.0.0"], ["0.49.1", "1.10.0"]),
    ("uvicorn", ["1.0.0"], ["0.30.0", "0.54.0"]),
    ("h11", ["0.14.0", "0.15.0"], ["0.16.0"]),
    ("pillow-heif", ["0.16.0", "2.0.0"], ["1.8.1"]),
])
def test_floors_and_ceilings(name, refused, allowed):
    spec = _requirements()[name].specifier
    assert not any(spec.contains(Version(v)) for v in refused), (name, spec)
    assert all(spec.contains(Version(v)) for v in allowed), (name, spec)


def test_what_is_installed_is_within_the_bounds():
    for name, req in _requirements().items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        assert req.specifier.contains(Version(have), prereleases=True), f"{name} {have} is outside {req.specifier}"
