"""Throughput of mjcam.scoring.score against the riichi `mahjong` package's HandCalculator.

Both score the same random closed winning hands (four sets and a pair, a random winning tile,
self-drawn) in one run. Prints hands per second for each and the ratio.

    pip install mahjong==2.1.0
    python -m benchmarks.scoring_speed [--hands 3000] [--rules all] [--seed 1] [--rounds 5]

How it is timed, so the two are compared alike:

- each scorer gets its input ready-made outside the timing: mjcam the hand in notation, as a
  person or the recogniser writes it (so parsing is timed), riichi its 136-tile array;
- before timing, each scores 1,000 other hands (another seed) once, as any long-running process
  would have: mjcam's per-suit decomposition table and its per-preset memos fill, riichi warms its
  own caches;
- neither keeps whole hands from one pass to the next: mjcam caches no whole hand (it keeps what
  it keeps across any hands: its per-suit table, the notation tokens it has read, per-preset memos
  of candidate patterns and tallies), riichi only its last 128, fewer than a pass; the first pass
  is also shown on its own, with mjcam meeting suit contents and tokens the warm-up did not have;
- a pass is timed in CPU seconds of this process (``time.process_time``), so other work on the
  machine does not count; the passes alternate, riichi then mjcam, ``--rounds`` times, and each
  figure is the median, so what remains (a busy memory bus, a slower clock) weighs on both.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from mjcam.scoring import PRESET_IDS, load_preset, score
from mjcam.scoring.notation import format_tiles
from mjcam.scoring.tiles import CODES


def random_hands(n: int, seed: int) -> list[tuple[list[int], int]]:
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        counts = [0] * 34
        tiles: list[int] = []
        for _ in range(4):
            if rnd.random() < 0.7:
                s, k = rnd.randrange(3), rnd.randrange(7)
                g = [9 * s + k, 9 * s + k + 1, 9 * s + k + 2]
            else:
                g = [rnd.randrange(34)] * 3
            tiles += g
        p = rnd.randrange(34)
        tiles += [p, p]
        for t in tiles:
            counts[t] += 1
        if max(counts) > 4:
            continue
        out.append((sorted(tiles), rnd.choice(tiles)))
    return out


def to_notation(tiles: list[int], win: int) -> str:
    """Compact notation, as a person or the recogniser writes it: '123m 45p EE +6p'."""
    rest = list(tiles)
    rest.remove(win)
    return format_tiles(rest) + " +" + CODES[win]


def riichi_ids(tiles: list[int]) -> list[int]:
    # riichi 34-index: man 0-8, pin 9-17, sou 18-26, winds E S W N 27-30, dragons haku hatsu chun 31-33
    remap = {31: 33, 32: 32, 33: 31}  # ours: Rd Gd Wd
    return [remap.get(t, t) for t in tiles]


def riichi_input(hands) -> list[tuple[list[int], int]]:
    """Each hand as riichi's 136-tile array and winning tile, made before timing."""
    out = []
    for tiles, win in hands:
        ids = riichi_ids(tiles)
        tiles136, used = [], [0] * 34
        for t in ids:
            tiles136.append(t * 4 + used[t])
            used[t] += 1
        out.append((tiles136, tiles136[ids.index(riichi_ids([win])[0])]))
    return out


def mjcam_pass(texts: list[str], rules: str) -> float:
    """CPU seconds to score every hand."""
    preset = load_preset(rules)
    t0 = time.process_time()
    for text in texts:
        score(text, preset)
    return time.process_time() - t0


def riichi_scorer():
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calc = HandCalculator()
    config = HandConfig(is_tsumo=True)

    def run(inputs) -> float:
        t0 = time.process_time()
        for tiles136, win in inputs:
            calc.estimate_hand_value(tiles136, win, config=config)
        return time.process_time() - t0

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--rules", default="all", choices=PRESET_IDS + ("all",))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5, help="timed passes of each scorer (median reported)")
    a = ap.parse_args()
    hands = random_hands(a.hands, a.seed)
    texts = [to_notation(t, w) for t, w in hands]
    warm = random_hands(1000, a.seed + 1000)
    warm_texts = [to_notation(t, w) for t, w in warm]
    ids = PRESET_IDS if a.rules == "all" else (a.rules,)
    print(f"{len(hands)} random closed winning hands, self-drawn, seed {a.seed}; "
          f"median of {a.rounds} alternating passes")
    riichi = riichi_scorer()
    if riichi is None:
        print("riichi `mahjong` not installed (pip install mahjong==2.1.0): no peer figure")
    else:
        peer_in, warm_in = riichi_input(hands), riichi_input(warm)
        riichi(warm_in)
    for rid in ids:
        for text in warm_texts:
            score(text, rid)
    ours: dict[str, list[float]] = {rid: [] for rid in ids}
    peer: list[float] = []
    for _ in range(a.rounds):
        if riichi is not None:
            peer.append(riichi(peer_in))
        for rid in ids:
            ours[rid].append(mjcam_pass(texts, rid))
    n = len(hands)
    if peer:
        peer_rate = n / statistics.median(peer)
        print(f"{'mahjong HandCalculator (riichi)':<40}{peer_rate:>10.0f} hands/s")
    for rid in ids:
        rate = n / statistics.median(ours[rid])
        ratio = f"{rate / peer_rate:>6.2f}x riichi" if peer else ""
        first = f"   (first pass {peer[0] / ours[rid][0]:.2f}x)" if peer else ""
        print(f"{'mjcam score, ' + rid:<40}{rate:>10.0f} hands/s  {ratio}{first}")
    if peer and len(ids) > 1:
        worst = min(n / statistics.median(ours[rid]) for rid in ids)
        print(f"{'slowest preset':<40}{worst:>10.0f} hands/s  {worst / peer_rate:>6.2f}x riichi")


if __name__ == "__main__":
    main()
