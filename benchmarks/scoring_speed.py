"""Throughput of scoring.score against the riichi `mahjong` package's HandCalculator.

Both score the same random closed winning hands (four sets and a pair, a random winning tile,
self-drawn) in one run. Prints hands per second for each and the ratio.

    pip install mahjong==2.1.0
    python benchmarks/scoring_speed.py [--hands 3000] [--rules hk-old-style] [--seed 1]

`--repeat` scores the same hands again (warm caches), the way a game log or batch run sees
repeated hands; the first pass is the cold figure.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from mjcam.scoring import PRESET_IDS, load_preset, score  # noqa: E402
from mjcam.scoring.decompose import decompose_counts  # noqa: E402
from mjcam.scoring.notation import format_tiles  # noqa: E402
from mjcam.scoring.tiles import CODES  # noqa: E402


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


def bench_mjcam(hands, rules: str) -> float:
    preset = load_preset(rules)
    t0 = time.perf_counter()
    for tiles, win in hands:
        score(to_notation(tiles, win), preset)
    return len(hands) / (time.perf_counter() - t0)


def bench_riichi(hands) -> float | None:
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calc = HandCalculator()
    config = HandConfig(is_tsumo=True)
    t0 = time.perf_counter()
    for tiles, win in hands:
        ids = riichi_ids(tiles)
        tiles136 = []
        used = [0] * 34
        for t in ids:
            tiles136.append(t * 4 + used[t])
            used[t] += 1
        w = riichi_ids([win])[0]
        calc.estimate_hand_value(tiles136, tiles136[ids.index(w)], config=config)
    return len(hands) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--rules", default="all", choices=PRESET_IDS + ("all",))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", action="store_true", help="also time a second, warm-cache pass")
    a = ap.parse_args()
    hands = random_hands(a.hands, a.seed)
    print(f"{len(hands)} random closed winning hands, self-drawn, seed {a.seed}")
    peer = bench_riichi(hands)
    if peer is None:
        print("riichi `mahjong` not installed (pip install mahjong==2.1.0): no peer figure")
    else:
        print(f"{'mahjong HandCalculator (riichi)':<40}{peer:>10.0f} hands/s")
    for rules in (PRESET_IDS if a.rules == "all" else (a.rules,)):
        decompose_counts.cache_clear()
        cold = bench_mjcam(hands, rules)
        ratio = f"{cold / peer:>6.1f}x" if peer else ""
        print(f"{'mjcam score, ' + rules + ' (cold)':<40}{cold:>10.0f} hands/s  {ratio}")
        if a.repeat:
            warm = bench_mjcam(hands, rules)
            ratio = f"{warm / peer:>6.1f}x" if peer else ""
            print(f"{'mjcam score, ' + rules + ' (warm)':<40}{warm:>10.0f} hands/s  {ratio}")


if __name__ == "__main__":
    main()
