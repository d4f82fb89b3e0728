"""Rule presets as objects, and house-rule overrides on them (flags or a TOML file).

>>> p = load_preset("hk-guide", {"cap": 13, "patterns": {"seven_pairs": 4}})
>>> p.cap, p.limit, p.patterns["seven_pairs"]
(13, 13, 4)
>>> load_preset("hk-guide", {"colour": "red"})
Traceback (most recent call last):
...
scoring.rules.ConfigError: unknown key 'colour' (known: bonus_counts_for_min, cap, choices, dealer_doubling, limit_fan, min_fan, name, patterns, payment, settings, stacks, suppresses, table)
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from .patterns import PATTERNS, SHAPE_TRAIT, implied
from .payments import SCHEMES
from .presets import DEFAULT_SETTINGS, PRESET_DATA, SETTING_CHOICES
from .tables import TABLES


CANDIDATES_BOUND = 4096  # candidate sets a preset keeps before it starts again


PRINCIPLE = """\
One rule decides what a pattern replaces, for every preset. When every hand that has pattern A also
has pattern B (A *implies* B; the table below names each such pair, worked out from the patterns'
definitions and checked against them), A's value is read as covering B, and B is not scored again,
provided A is worth more than B: Wait is inside Melded Hand, the dragon pungs inside Little Three
Dragons. A value no higher than B's is read as what A adds to B (covering B, it would add nothing or
take fan away), and both are scored: Four Revealed Pungs (2 fan in the new style) on top of the All
Pungs (7) it implies. For a pattern counted once per set (a dragon pung, an Honor Tiles pung), A
covers the sets its own definition names: Little Three Dragons covers its two dragon pungs, not a
third pung of the seat wind. A win on a supplement tile is a self-drawn win: it is paid as one and
scores Self-drawn as one, beside Out on Kong Replacement or Kong on Kong. Where the rule book says
otherwise for a pair, or adds up every pattern it lists, the preset follows the rule book and the
table quotes it. A limit hand is worth the limit, and no pattern that is not a limit hand is added
to it. A pattern that names a hand shape tests that shape: a hand of pungs and a pair of terminals
and honours is not thirteen orphans."""

SUPPLEMENT_TILE_WINS = frozenset({"kong_replacement", "double_kong"})
SUPPLEMENT_TILE_RULE = ("a win on a supplement tile is self-drawn: it is paid as a self-drawn win and scores "
                        "Self-drawn as one")


class Relation(NamedTuple):
    """How pattern ``a`` bears on pattern ``b`` under a preset: ``replaces`` (b is not scored when
    a is; ``k`` of its instances, 0 for all), ``implied`` (every hand with a has b), ``why``."""

    a: str
    b: str
    k: int
    replaces: bool
    implied: bool
    why: str


class ConfigError(ValueError):
    """A house rule that cannot be applied: unknown key, preset, pattern or bad value."""


@dataclass(frozen=True)
class RulePreset:
    id: str
    name: str
    seed: str
    min_fan: int
    cap: int | None
    limit_fan: int | str | None
    table: str
    payment: str
    dealer_doubling: bool
    bonus_counts_for_min: bool
    settings: dict = field(default_factory=dict)
    patterns: dict = field(default_factory=dict)
    suppresses: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    optional: tuple = ()
    stacks: dict = field(default_factory=dict)

    @property
    def limit(self) -> int | None:
        """The fan a limit hand is given (the cap where the preset says 'cap')."""
        return self.cap if self.limit_fan == "cap" else self.limit_fan

    def active_patterns(self) -> list[tuple[str, int | str]]:
        """(pattern id, value) for every pattern this preset scores, in registry order."""
        return list(self._active)

    @cached_property
    def version(self) -> str:
        """A short fingerprint of everything that decides a score under this preset (house rules
        included): a ledger stores it so history never silently changes when a preset does."""
        import hashlib
        import json

        data = [self.id, self.min_fan, self.cap, self.limit_fan, self.table, self.payment, self.dealer_doubling,
                self.bonus_counts_for_min, self.settings, self.patterns, self.replaces, list(self.optional)]
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:12]

    @cached_property
    def _active(self) -> tuple[tuple[str, int | str], ...]:
        drop = set() if self.settings.get("include_optional", True) else set(self.optional)
        return tuple((pid, self.patterns[pid]) for pid in PATTERNS if pid in self.patterns and pid not in drop)

    @cached_property
    def active_ids(self) -> frozenset[str]:
        return frozenset(pid for pid, _ in self._active)

    @cached_property
    def _candidates(self) -> dict:
        return {}

    def candidates(self, shape: str, traits: int) -> tuple[int, tuple[str, ...], tuple[tuple[str, object], ...]]:
        """What can match a reading of ``shape`` with ``traits`` (``patterns.TRAITS``): a pattern
        defined on another shape, or needing a trait the reading lacks, cannot. Returns (a number
        naming this (shape, traits), the ids that match on shape and traits alone
        (``Pattern.exact``), the (id, predicate) pairs still to call), each in registry order.

        >>> n, exact, tests = load_preset("hk-old-style").candidates("seven_pairs", 0)
        >>> exact, [pid for pid, _ in tests]
        (('seven_pairs',), [])
        """
        return self.candidates_of(traits | SHAPE_TRAIT[shape])

    def candidates_of(self, traits: int) -> tuple[int, tuple[str, ...], tuple[tuple[str, object], ...]]:
        """:meth:`candidates` of a reading whose traits include its shape's; cached per the traits
        any of this preset's patterns looks at (``trait_mask``)."""
        traits &= self.trait_mask
        cands = self._candidates.get(traits)
        if cands is None:
            if len(self._candidates) > CANDIDATES_BOUND:
                self._candidates.clear()
                self._tallies.clear()
            fit = [(p, exact) for p, needs, exact in self._gates if traits & p.shape_bits and traits & needs == needs]
            cands = self._candidates[traits] = (len(self._candidates), tuple(p.id for p, exact in fit if exact),
                                                tuple((p.id, p.fn) for p, exact in fit if not exact))
        return cands

    @cached_property
    def _gates(self) -> tuple[tuple[object, int, bool], ...]:
        """(pattern, needs, exact) of every active pattern under this preset's settings."""
        return tuple((PATTERNS[pid],) + PATTERNS[pid].needs_under(self.settings) for pid, _ in self._active)

    @cached_property
    def trait_mask(self) -> int:
        """The traits some active pattern needs or is shaped by: a reading's other traits make no
        difference here."""
        mask = 0
        for p, needs, _ in self._gates:
            mask |= needs | p.shape_bits
        return mask

    @cached_property
    def _tallies(self) -> dict:
        return {}

    @cached_property
    def order(self) -> dict[str, int]:
        """Pattern id -> its place in the registry (the order patterns are listed in)."""
        return {pid: i for i, pid in enumerate(PATTERNS)}

    def worth(self, pid: str, count: int = 1) -> float:
        """What ``count`` instances of a pattern are worth here (a limit hand more than any number)."""
        v = self.patterns[pid]
        return float("inf") if v == "limit" else v * count

    @cached_property
    def relations(self) -> tuple[Relation, ...]:
        """The implied-by table of this preset: a :class:`Relation` for every pair of active
        patterns where A implies B, or that the preset names. The rule is :data:`PRINCIPLE`, the
        same for every preset; what a preset's rule book says otherwise is in its data:
        ``stacks`` (implied, scored together all the same), ``suppresses`` (dropped all the same,
        implied or not) and the setting ``implied_patterns`` ("added": the rule book adds up every
        pattern it lists, so an implied pattern is scored as well unless ``suppresses`` names it).
        A win on a supplement tile scores Self-drawn as well under every preset
        (:data:`SUPPLEMENT_TILE_RULE`). Limit hands replace everything that is not a limit hand
        (``engine``).

        >>> [r for r in load_preset("hk-new-style").relations if r.a == "semi_self_sufficient"]
        [Relation(a='semi_self_sufficient', b='wait', k=1, replaces=True, implied=True, why='worth more (7 > 2)')]
        >>> [r.why for r in load_preset("hk-new-style").relations if r.a == "four_revealed_pungs"][0]
        'worth no more (2 <= 7), so its value is what it adds'
        """
        active = self.active_ids
        added = self.settings.get("implied_patterns", "included") == "added"
        out = []
        for a, row in implied(self.settings).items():
            if a not in active:
                continue
            for b, k in row.items():
                if b not in active:
                    continue
                wa, wb = _fmt(self.worth(a)), _fmt(self.worth(b, k or 1))
                if b in self.stacks.get(a, {}):
                    out.append(Relation(a, b, k, False, True, f"the preset: {self.stacks[a][b]}"))
                elif b in self.suppresses.get(a, ()):
                    why = self.choices.get(f"suppresses.{a}", "a house rule")
                    out.append(Relation(a, b, k, True, True, f"the preset: {why}"))
                elif a in SUPPLEMENT_TILE_WINS and b == "self_drawn":
                    out.append(Relation(a, b, k, False, True, SUPPLEMENT_TILE_RULE))
                elif added and self.patterns[a] != "limit":
                    why = self.choices.get("settings.implied_patterns", "a house rule")
                    out.append(Relation(a, b, k, False, True, f"the preset adds up: {why}"))
                elif self.worth(a) > self.worth(b, k or 1):
                    out.append(Relation(a, b, k, True, True, f"worth more ({wa} > {wb})"))
                else:
                    out.append(Relation(a, b, k, False, True,
                                        f"worth no more ({wa} <= {wb}), so its value is what it adds"))
        for a, victims in self.suppresses.items():
            if a not in active:
                continue
            for b in victims:
                if b in active and not any(r.a == a and r.b == b for r in out):
                    why = self.choices.get(f"suppresses.{a}", "a house rule")
                    out.append(Relation(a, b, 0, True, False, f"the preset: {why}"))
        return tuple(out)

    @cached_property
    def replaces(self) -> dict[str, tuple[tuple[str, int], ...]]:
        """A -> ((B, k), ...): when A is scored, k instances of B are not (k = 0: all of them)."""
        out: dict[str, list[tuple[str, int]]] = {}
        for r in self.relations:
            if r.replaces:
                out.setdefault(r.a, []).append((r.b, r.k))
        return {a: tuple(v) for a, v in out.items()}


def _fmt(x: float) -> str:
    return "limit" if x == float("inf") else str(int(x))


_OVERRIDABLE = ("name", "min_fan", "cap", "limit_fan", "table", "payment", "dealer_doubling",
                "bonus_counts_for_min", "settings", "patterns", "suppresses", "stacks", "choices")


def _check_int(key: str, v: Any, allow_none: bool = False) -> None:
    if v is None and allow_none:
        return
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ConfigError(f"{key} must be a whole number >= 0, not {v!r}")


def _apply(data: dict, overrides: dict) -> None:
    for key, value in overrides.items():
        if key not in _OVERRIDABLE:
            raise ConfigError(f"unknown key {key!r} (known: {', '.join(sorted(_OVERRIDABLE))})")
        if key in ("settings", "patterns", "suppresses", "stacks", "choices"):
            if not isinstance(value, dict):
                raise ConfigError(f"[{key}] must be a table of values")
            for sub, v in value.items():
                _apply_sub(data, key, sub, v)
            continue
        if key in ("min_fan",):
            _check_int(key, value)
        elif key == "cap":
            _check_int(key, value, allow_none=True)
        elif key == "limit_fan":
            if value != "cap":
                _check_int(key, value, allow_none=True)
        elif key == "table" and value not in TABLES:
            raise ConfigError(f"unknown table {value!r} (known: {', '.join(TABLES)})")
        elif key == "payment" and value not in SCHEMES:
            raise ConfigError(f"unknown payment {value!r} (known: {', '.join(SCHEMES)})")
        elif key in ("dealer_doubling", "bonus_counts_for_min") and not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, not {value!r}")
        data[key] = value


def _apply_sub(data: dict, key: str, sub: str, v: Any) -> None:
    if key == "choices":
        data["choices"][sub] = str(v)
        return
    if key == "settings":
        if sub not in DEFAULT_SETTINGS:
            raise ConfigError(f"unknown setting {sub!r} (known: {', '.join(DEFAULT_SETTINGS)})")
        want = type(DEFAULT_SETTINGS[sub])
        if type(v) is not want:
            raise ConfigError(f"setting {sub} must be {want.__name__}, not {v!r}")
        if sub in SETTING_CHOICES and v not in SETTING_CHOICES[sub]:
            raise ConfigError(f"setting {sub} must be one of {', '.join(SETTING_CHOICES[sub])}, not {v!r}")
        data["settings"][sub] = v
        return
    if sub not in PATTERNS:
        raise ConfigError(f"unknown pattern {sub!r} in [{key}] (see `mjcam rules`)")
    if key == "patterns":
        if v is False:
            data["patterns"].pop(sub, None)
        elif v == "limit":
            data["patterns"][sub] = "limit"
        else:
            _check_int(f"patterns.{sub}", v)
            data["patterns"][sub] = v
        return
    if not isinstance(v, list) or any(x not in PATTERNS for x in v):
        raise ConfigError(f"{key}.{sub} must be a list of pattern ids, not {v!r}")
    if key == "stacks":
        data["stacks"][sub] = {x: "a house rule" for x in v}
        return
    data["suppresses"][sub] = list(v)


def load_preset(rules: str | RulePreset = "hk-old-style", overrides: dict | None = None) -> RulePreset:
    """The preset ``rules`` (an id) with house-rule ``overrides`` applied."""
    if isinstance(rules, str) and not overrides:
        return _plain_preset(rules)
    return _build(rules, overrides)


@lru_cache(maxsize=None)
def _plain_preset(rules: str) -> RulePreset:
    """A preset with no overrides, built once per id (presets are never changed after building)."""
    return _build(rules, None)


def _build(rules: str | RulePreset, overrides: dict | None) -> RulePreset:
    if isinstance(rules, RulePreset):
        if not overrides:
            return rules
        data = {k: copy.deepcopy(getattr(rules, k)) for k in RulePreset.__dataclass_fields__}
    else:
        if rules not in PRESET_DATA:
            raise ConfigError(f"unknown rules {rules!r} (known: {', '.join(PRESET_DATA)})")
        data = copy.deepcopy(PRESET_DATA[rules])
        data["settings"] = {**DEFAULT_SETTINGS, **data["settings"]}
        data["optional"] = tuple(data.get("optional", ()))
        data.setdefault("stacks", {})
    _apply(data, overrides or {})
    limit = data["cap"] if data["limit_fan"] == "cap" else data["limit_fan"]
    if limit is None and any(v == "limit" for v in data["patterns"].values()):
        raise ConfigError("a limit hand needs a value for the limit: set limit_fan (or cap, where limit_fan = \"cap\")")
    return RulePreset(**data)


def read_config(path: str) -> dict:
    """Read house rules from a TOML file; errors name the file and what is wrong."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {path} is not valid TOML: {e}") from None
