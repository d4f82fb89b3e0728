"""Property tests: random legal hands under random presets and situations."""

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mjcam.scoring import PRESET_IDS, NotationError, format_hand, load_preset, parse_hand, score
from mjcam.scoring.context import WinContext
from mjcam.scoring.decompose import arrangements
from mjcam.scoring.engine import _evaluate, _key
from mjcam.scoring.tiles import CODES, SEATS

SET = st.one_of(
    st.tuples(st.just("chow"), st.integers(0, 2), st.integers(0, 6)),
    st.tuples(st.just("pung"), st.integers(0, 33), st.just(0)),
    st.tuples(st.just("kong"), st.integers(0, 33), st.just(0)),
)


def _tiles(kind, a, b):
    if kind == "chow":
        t = 9 * a + b
        return [t, t + 1, t + 2]
    return [a] * (3 if kind == "pung" else 4)


@st.composite
def hands(draw):
    sets = draw(st.lists(SET, min_size=4, max_size=4))
    pair = draw(st.integers(0, 33))
    groups = [_tiles(*s) for s in sets]
    counts = [0] * 34
    for g in groups + [[pair, pair]]:
        for t in g:
            counts[t] += 1
    assume(max(counts) <= 4)
    melded = [draw(st.booleans()) if s[0] != "kong" else draw(st.sampled_from(["[", "{", "c"])) for s in sets]
    parts, concealed = [], [pair, pair]
    for g, m, s in zip(groups, melded, sets):
        if m is True or m == "[":
            parts.append("[" + " ".join(CODES[t] for t in g) + "]")
        elif m == "{":
            parts.append("{" + " ".join(CODES[t] for t in g) + "}")
        elif s[0] == "kong":  # a concealed kong must be declared: make it a concealed pung instead
            concealed += g[:3]
        else:
            concealed += g
    win = draw(st.sampled_from(concealed))
    concealed.remove(win)
    rnd = random.Random(draw(st.integers(0, 10**6)))
    rnd.shuffle(concealed)
    bonus = draw(st.lists(st.sampled_from(CODES[34:]), unique=True, max_size=8))
    text = " ".join(parts + [CODES[t] for t in concealed] + bonus + ["+" + CODES[win]])
    return text


@st.composite
def situations(draw):
    seat = draw(st.sampled_from(SEATS))
    dealer = draw(st.sampled_from(SEATS))
    discarder = draw(st.one_of(st.none(), st.sampled_from([s for s in SEATS if s != seat])))
    kw = dict(seat=seat, round=draw(st.sampled_from(SEATS)), dealer=dealer, discarder=discarder,
              last_tile=draw(st.booleans()), last_of_kind=draw(st.booleans()))
    if discarder is None:
        kw["kong_replacement"] = draw(st.booleans())
        kw["heavenly"] = seat == dealer and draw(st.booleans())
    else:
        kw["robbing_kong"] = draw(st.booleans())
        kw["earthly"] = seat != dealer and discarder == dealer and draw(st.booleans())
    kw["responsible"] = draw(st.one_of(st.none(), st.sampled_from([s for s in SEATS if s != seat])))
    return kw


PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@PROFILE
@given(hands(), situations(), st.sampled_from(PRESET_IDS))
def test_random_legal_hands_score_without_raising(text, sit, rid):
    r = score(text, rid, **sit)
    assert r.arrangement is not None or r.reason
    assert set(r.payments) == set(SEATS)
    assert sum(r.payments.values()) == 0
    assert all(isinstance(v, int) for v in r.payments.values())
    if r.legal:
        assert r.payments[sit["seat"]] > 0 or r.points == 0
    else:
        assert all(v == 0 for v in r.payments.values())
    cap = load_preset(rid).cap
    if cap is not None:
        assert r.fan <= cap


@PROFILE
@given(hands(), situations(), st.sampled_from(PRESET_IDS))
def test_chosen_reading_scores_at_least_as_much_as_every_other(text, sit, rid):
    h = parse_hand(text)
    preset = load_preset(rid)
    ctx = WinContext(**sit)
    assume(not (h.bonus and not ctx.flowers_in_play))
    r = score(h, preset, **sit)
    assume(r.arrangement is not None)
    arrs = arrangements(h, ctx.self_drawn, seven_pairs="seven_pairs" in dict(preset.active_patterns()))
    evals = [_evaluate(h, a, ctx, preset) for a in arrs]
    chosen = next(i for i, a in enumerate(arrs) if a == r.arrangement)
    for i, e in enumerate(evals):
        assert _key(evals[chosen], chosen) >= _key(e, i)
        if e.meets_min and e.points is not None and r.legal:
            assert r.points >= e.points


@PROFILE
@given(hands(), situations(), st.sampled_from(PRESET_IDS), st.integers(0, 10**6))
def test_shuffling_the_concealed_tiles_changes_nothing(text, sit, rid, seed):
    h = parse_hand(text)
    tokens = [CODES[t] for t in h.concealed]
    tokens.remove(CODES[h.winning])
    random.Random(seed).shuffle(tokens)
    from mjcam.scoring.notation import format_meld
    shuffled = " ".join([format_meld(m) for m in h.melds] + tokens + [CODES[b] for b in h.bonus]
                        + ["+" + CODES[h.winning]])
    a = score(text, rid, **sit).to_json()
    b = score(shuffled, rid, **sit).to_json()
    assert a == b


@PROFILE
@given(hands())
def test_print_parse_round_trip(text):
    h = parse_hand(text)
    assert parse_hand(format_hand(h)) == h


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="123456789mpszESWNRdGdWF+[]{} 0", max_size=40))
def test_any_text_parses_or_raises_a_notation_error(text):
    try:
        parse_hand(text)
    except NotationError as e:
        # every notation error names a token and its position, the position in words only where one
        # token is wrong (not for a fault of the whole hand)
        assert e.position >= 1 and (f"position {e.position}" in str(e)) != e.whole


@PROFILE
@given(hands(), st.sampled_from(["compact", "codes", "tenhou"]))
def test_the_plain_fast_path_reads_what_the_full_parser_reads(text, style):
    """parse_hand reads plain notation on a fast path; it must give the full tokenizer's Hand
    (or leave the text to it)."""
    from mjcam.scoring.notation import _parse_full, _parse_plain
    h = parse_hand(text)
    if style == "compact":
        text = format_hand(h)
    elif style == "tenhou":
        text = format_hand(h).replace("Rd", "7z").replace("Gd", "6z").replace("Wd", "5z")
    fast = _parse_plain(text)
    full = _parse_full(text, False)
    assert fast is None or fast == full
    if style == "compact":
        assert fast == full
