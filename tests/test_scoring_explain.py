"""The meaning tables: docs/rules is what the generator writes from the presets' data, every
pattern has its seed's words, and `mjcam rules PRESET --explain` prints the table."""

import os
import re

import pytest

from mjcam.cli import main
from mjcam.scoring import PRESET_IDS, load_preset
from mjcam.scoring.explain import main as explain_main
from mjcam.scoring.explain import meanings, pages, text
from mjcam.scoring.seed_words import RULES, SOURCES, WORDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES_DOCS = os.path.join(ROOT, "docs", "rules")
SEEDS = os.path.join(ROOT, "..", "shared", "seeds")


def test_committed_pages_are_what_the_generator_writes():
    for name, content in pages().items():
        with open(os.path.join(RULES_DOCS, name), encoding="utf-8") as fh:
            assert fh.read() == content, f"docs/rules/{name} is stale: python -m mjcam.scoring.explain docs/rules"
    assert sorted(os.listdir(RULES_DOCS)) == sorted(pages())


def test_check_mode_finds_a_stale_page(tmp_path, capsys):
    assert explain_main([str(tmp_path)]) == 0  # writes
    assert explain_main(["--check", str(tmp_path)]) == 0
    (tmp_path / "hk-guide.md").write_text("old", encoding="utf-8")
    assert explain_main(["--check", str(tmp_path)]) == 1
    assert "hk-guide.md" in capsys.readouterr().out


def test_pages_point_at_nothing_outside_the_repository():
    for name, content in pages().items():
        assert "../" not in content and "shared/" not in content and ".txt" not in content, name
        assert not re.search(r"\b00[0-4]_", content), name  # no seed file names
        for target in re.findall(r"\]\(([^)#\s]+)", content):
            assert os.path.exists(os.path.join(RULES_DOCS, target)), (name, target)


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_every_pattern_has_its_seeds_words(rid):
    rows = meanings(rid)
    assert {m.id for m in rows} == load_preset(rid).active_ids
    assert all(m.words for m in rows), [m.id for m in rows if not m.words]
    assert set(RULES[rid]) == {"min_fan", "payment", "table"} and rid in SOURCES


@pytest.mark.skipif(not os.path.isdir(SEEDS), reason="no seed documents beside the checkout")
def test_quotes_are_lines_of_the_seeds():
    lines = {}
    for name in os.listdir(SEEDS):
        with open(os.path.join(SEEDS, name), encoding="utf-8") as fh:
            for line in fh.read().split("\n"):
                lines[" · ".join(c.strip() for c in line.strip().split("\t"))] = name
    for rid in PRESET_IDS:
        found = {lines.get(q) for words in list(WORDS[rid].values()) + list(RULES[rid].values()) for q in words}
        assert None not in found, rid
        assert len(found) == 1, f"{rid} quotes more than one seed"


def test_the_issue_pairs_read_as_fixed():
    hkns = {m.id: m for m in meanings("hk-new-style")}
    assert [n for n, _ in hkns["semi_self_sufficient"].excludes] == ["Single, Closed or Edge Wait"]
    assert "Honour Tiles (2 of them)" in [n for n, _ in hkns["little_three_dragons"].excludes]
    assert "every pattern that is not a limit hand" in [n for n, _ in hkns["thirteen_orphans"].excludes]
    cns = {m.id: m for m in meanings("chinese-new-style")}
    assert any("Does not imply scoring for Pung hand" in how for _, how in cns["mixed_terminals"].implies)


def test_rules_explain_on_the_command_line(capsys):
    assert main(["rules", "hk-old-style", "--explain"]) == 0
    out = capsys.readouterr().out
    assert out == text("hk-old-style")
    assert "Jade Dragon 翡翠龍 (jade_dragon): limit (10 fan)" in out
    assert "“Limit · Jade Dragon · Hand is composed of pung (or kong) of bamboo tiles" in out
    assert main(["rules", "--explain"]) == 2
    assert "--explain needs a preset" in capsys.readouterr().err


def test_rules_explain_takes_house_rules(tmp_path, capsys):
    cfg = tmp_path / "house.toml"
    cfg.write_text("[patterns]\nseven_pairs = 8\n", encoding="utf-8")
    assert main(["rules", "hk-old-style", "--explain", "--config", str(cfg)]) == 0
    assert "Seven Pairs 七對子 (seven_pairs): 8 fan" in capsys.readouterr().out
