"""What every pattern of a preset means: the rule book's words, what it implies, what it excludes.

:func:`meanings` builds the table from the preset's data (its values, its relations and the
seed's quoted lines in ``seed_words``); :func:`markdown` writes it as a page for ``docs/rules``,
:func:`text` for a person at the table (``mjcam rules PRESET --explain``).

    python -m mjcam.scoring.explain docs/rules           # write the pages
    python -m mjcam.scoring.explain --check docs/rules   # exit 1 when a page is not what it would write

>>> m = {row.id: row for row in meanings("hk-new-style")}["semi_self_sufficient"]
>>> m.value, [name for name, _ in m.excludes]
(7, ['Single, Closed or Edge Wait'])
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from dataclasses import dataclass

from .patterns import PATTERNS
from .payments import SCHEMES
from .presets import DEFAULT_SETTINGS, PRESET_IDS, SETTING_HELP
from .rules import PRINCIPLE, RulePreset, load_preset
from .seed_words import RULES, SOURCES, WORDS
from .tables import TABLES


@dataclass(frozen=True)
class Meaning:
    """One pattern under one preset. ``implies``, ``excludes`` and ``dropped_by`` hold (pattern
    name, how) pairs; ``words`` the seed's lines."""

    id: str
    name: str
    zh: str
    value: int | str
    words: tuple[str, ...]
    implies: tuple[tuple[str, str], ...]
    excludes: tuple[tuple[str, str], ...]
    dropped_by: tuple[tuple[str, str], ...]
    shapes: str


_SHAPES = {
    frozenset({"standard"}): "four sets and a pair",
    frozenset({"standard", "seven_pairs"}): "four sets and a pair, or seven pairs",
    frozenset({"standard", "seven_pairs", "thirteen_orphans"}): "any complete hand",
    frozenset({"seven_pairs"}): "seven pairs",
    frozenset({"thirteen_orphans"}): "thirteen orphans",
    frozenset({"bonus"}): "an instant win on bonus tiles",
}


def _times(k: int) -> str:
    return "" if k in (0, 1) else f" ({k} of them)"


def meanings(rules: str | RulePreset) -> list[Meaning]:
    """One :class:`Meaning` per pattern the preset scores, ordinary ones by value, then limits."""
    p = load_preset(rules)
    words = WORDS.get(p.id, {})
    name = {pid: PATTERNS[pid].name for pid in PATTERNS}
    out = []
    limits = [pid for pid, v in p.active_patterns() if v == "limit"]
    for pid, value in p.active_patterns():
        implies, excludes, dropped = [], [], []
        for r in p.relations:
            if r.a == pid and r.implied:
                implies.append((name[r.b] + _times(r.k), ("not scored with it, " if r.replaces else "scored as well, ")
                                + r.why))
            if r.a == pid and r.replaces:
                excludes.append((name[r.b] + _times(r.k), r.why))
            if r.b == pid and r.replaces:
                dropped.append((name[r.a], r.why))
        if value == "limit":
            excludes.append(("every pattern that is not a limit hand", f"the limit is {p.limit} fan, nothing added"))
        elif limits:
            dropped.append(("any limit hand", f"the limit is {p.limit} fan, nothing added"))
        out.append(Meaning(pid, name[pid], PATTERNS[pid].zh, value, words.get(pid, ()), tuple(implies),
                           tuple(excludes), tuple(dropped), _SHAPES.get(PATTERNS[pid].shapes, "any hand")))
    out.sort(key=lambda m: (m.value == "limit", m.value if m.value != "limit" else 0, m.name))
    return out


def _worth(p: RulePreset, v: int | str) -> str:
    return f"limit ({p.limit} fan)" if v == "limit" else f"{v} fan"


def _settings_lines(p: RulePreset) -> list[tuple[str, str]]:
    scheme = SCHEMES[p.payment][3]
    return [
        ("Minimum", f"{p.min_fan} fan" + ("" if p.bonus_counts_for_min else ", bonus tiles not counted towards it")
         + (", at least 1 of them from the hand's contents (its sets, pair, suits and honours, not how it was won "
            "or its bonus tiles), unless the hand is worth the limit" if p.settings["content_minimum"] else "")),
        ("Cap", f"{p.cap} fan" if p.cap is not None else "none: fan add up"),
        ("A limit hand", f"{p.limit} fan, with nothing else added"
         if any(v == "limit" for _, v in p.active_patterns()) else "none: every pattern has its own value"),
        ("Fan to points", f"{p.table}: {TABLES[p.table]}"),
        ("Payments", f"{p.payment}: {scheme}"),
        ("Dealer", "pays and is paid double" if p.dealer_doubling else "no doubling"),
    ]


_PRINCIPLE = PRINCIPLE  # the one rule, as the rules module states it


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _pairs(items) -> str:
    return "<br>".join(_cell(f"{n} ({how})") for n, how in items) or "—"


def markdown(rules: str | RulePreset) -> str:
    """The meaning table of a preset as a Markdown page."""
    p = load_preset(rules)
    title, where = SOURCES[p.id]
    lines = [f"# {p.name} (`{p.id}`)", "",
             f"Written by `python -m mjcam.scoring.explain docs/rules` from the preset's data; do not edit "
             f"by hand. The rule book is *{title}*, {where}; every quotation below is one of its lines, as "
             "written (the cells of a table row joined by ·).", "",
             "## The preset in short", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {_cell(v)} |" for k, v in _settings_lines(p)]
    lines += ["", "What the rule book says about these:", ""]
    for key, quoted in RULES.get(p.id, {}).items():
        lines += [f"- {key.replace('_', ' ')}:"] + [f"  > {_cell(q)}" for q in quoted]
    lines += ["", "## How patterns combine", "", _PRINCIPLE, "",
              "## Patterns", "",
              "Fan is the pattern's value here (per set where the pattern is counted once per set). "
              "*Implies*: what every hand with the pattern also has, and whether it is scored as well. "
              "*Excludes*: what is not scored when this pattern is. *Not scored under*: what excludes "
              "this one.", "",
              "| Pattern | Fan | The rule book's words | Implies | Excludes | Not scored under |",
              "|---|---|---|---|---|---|"]
    for m in meanings(p):
        head = f"**{m.name}** {m.zh} `{m.id}`<br>({m.shapes})"
        seed = "<br>".join(f"“{_cell(w)}”" for w in m.words) or "—"
        lines.append(f"| {head} | {_worth(p, m.value)} | {seed} | {_pairs(m.implies)} | {_pairs(m.excludes)} "
                     f"| {_pairs(m.dropped_by)} |")
    lines += ["", "## Choices where the rule book is silent or unclear", ""]
    lines += [f"- **{k}**: {_cell(v)}" for k, v in p.choices.items()]
    return "\n".join(lines) + "\n"


def index() -> str:
    """The page that lists the presets."""
    lines = ["# The rule presets, pattern by pattern", "",
             "One page per preset, each written from the preset's data by "
             "`python -m mjcam.scoring.explain docs/rules`: every pattern with its rule book's own words, what it "
             "implies, what it excludes, and the choices made where the rule book is silent. `mjcam rules PRESET "
             "--explain` prints the same table in the terminal.", ""]
    for rid in PRESET_IDS:
        p = load_preset(rid)
        lines.append(f"- [{p.name}]({rid}.md) (`{rid}`): from *{SOURCES[rid][0]}*")
    lines += ["", "## Settings", "",
              "Each preset's settings; any of them is a house rule for any preset, in the `[settings]` table of "
              "a `--config` file.", "",
              "| Setting | What it does | Default | Presets that change it |", "|---|---|---|---|"]
    for key, default in DEFAULT_SETTINGS.items():
        changed = [f"`{rid}`: {_value(load_preset(rid).settings[key])}" for rid in PRESET_IDS
                   if load_preset(rid).settings[key] != default]
        lines.append(f"| `{key}` | {_cell(SETTING_HELP[key])} | {_value(default)} | {', '.join(changed) or '—'} |")
    return "\n".join(lines) + "\n"


def _value(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def text(rules: str | RulePreset, width: int = 100) -> str:
    """The meaning table of a preset for a terminal, wrapped to ``width``."""
    p = load_preset(rules)
    title, where = SOURCES.get(p.id, (p.name, ""))
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="      ")
    out = [f"{p.id}: {p.name}", f"rule book: {title}" + (f", {where}" if where else ""), ""]
    out += [f"  {k}: {v}" for k, v in _settings_lines(p)]
    out += ["", *textwrap.wrap(_PRINCIPLE.replace("\n", " ").replace("*", ""), width), ""]
    for m in meanings(p):
        out.append(f"{m.name} {m.zh} ({m.id}): {_worth(p, m.value)}, on {m.shapes}")
        for w in m.words:
            out += wrap.wrap(f"  rule book: “{w}”")
        for label, items in (("implies", m.implies), ("excludes", m.excludes), ("not scored under", m.dropped_by)):
            for n, how in items:
                out += wrap.wrap(f"  {label}: {n} ({how})")
        out.append("")
    out.append("choices where the rule book is silent or unclear:")
    for k, v in p.choices.items():
        out += wrap.wrap(f"  {k}: {v}")
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    """File name -> content of every page in docs/rules."""
    out = {"README.md": index()}
    out.update({f"{rid}.md": markdown(rid) for rid in PRESET_IDS})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mjcam.scoring.explain", description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="where the pages go (docs/rules)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page differs")
    a = ap.parse_args(argv)
    stale = []
    for name, content in pages().items():
        path = os.path.join(a.folder, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == content:
            continue
        stale.append(path)
        if not a.check:
            os.makedirs(a.folder, exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(content)
    for path in stale:
        print(("differs: " if a.check else "wrote: ") + path)
    return 1 if a.check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
