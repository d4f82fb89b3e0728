"""The README and docs/ speak to users: a two-command quick start that works on a bundled sample,
under about 10 KB, and no link or path pointing outside the repository."""

import glob
import os
import re

from mjcam.scoring.tiles import CODES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DOCS = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def test_readme_starts_with_a_two_command_quick_start_on_a_bundled_sample():
    text = open(README, encoding="utf-8").read()
    assert len(text.encode()) < 10_240
    first = re.search(r"^## (.+)$", text, re.M).group(1)
    assert first == "Quick start"
    block = re.search(r"## Quick start\s+```sh\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert len(block) == 2
    assert block[0].startswith("pip install . && mjcam photo samples/") and " --yes" in block[0]
    sample = re.search(r"mjcam photo (\S+)", block[0]).group(1)
    assert os.path.isfile(os.path.join(ROOT, sample))
    assert block[1] == "pip install '.[test]' && python -m pytest"


def test_no_link_or_path_points_outside_the_repository():
    assert DOCS, "docs/ holds the reference"
    for path in [README] + DOCS:
        text = open(path, encoding="utf-8").read()
        assert "../" not in text and "shared/" not in text and "CONTRACT" not in text, path
        for target in re.findall(r"\]\(([^)#\s]+)", text):
            if re.match(r"[a-z]+:", target):
                continue
            where = os.path.normpath(os.path.join(os.path.dirname(path), target))
            assert where.startswith(ROOT) and os.path.exists(where), f"{path}: {target}"


def test_the_reference_lists_every_tile_code_and_exit_code():
    text = open(os.path.join(ROOT, "docs", "reference.md"), encoding="utf-8").read()
    for code in CODES:
        if code[0].isdigit():
            assert f"`{code[1]}`" in text or f"`1{code[1]}` to `9{code[1]}`" in text
        else:
            assert f"`{code}`" in text, code
    assert all(f"| {n} |" in text for n in (0, 1, 2))
    assert "from mjcam import score, recognize" in text
