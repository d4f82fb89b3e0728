"""What recording a hand costs as a game grows: the ledger's write alone, and the whole request.

    python -m benchmarks.ledger_record [--hands 4000] [--samples 20]

A game is filled to ``--hands`` recorded hands (the first recorded through the ledger, the rest
copied in with SQL, which is quick), then ``--samples`` more hands are recorded and timed at a few
sizes on the way: ``Ledger.record`` as it is (the write and the game it returns), the write alone
(``Ledger.record(..., view=False)`` where the ledger has it), and ``POST /api/games/ID/hands`` in
process. Times are medians in milliseconds.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sqlite3
import statistics
import sys
import tempfile
import time

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
WIN = "[RdRdRd] [123s] [999s] 45s NN +6s"  # the dealer (place 0) wins and keeps the deal


def _fill(db: str, gid: int, upto: int) -> None:
    """Copy the game's first hand until it has ``upto`` hands."""
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(hands)") if r[1] not in ("id", "seq", "request_id")]
    have = con.execute("SELECT COUNT(*), MAX(seq) FROM hands WHERE game_id = ?", (gid,)).fetchone()
    first = con.execute(f"SELECT {', '.join(cols)} FROM hands WHERE game_id = ? ORDER BY seq LIMIT 1", (gid,)).fetchone()
    rows = [(have[1] + i + 1, f"fill-{gid}-{have[1] + i + 1}", *first) for i in range(upto - have[0])]
    con.executemany(f"INSERT INTO hands (seq, request_id, {', '.join(cols)}) VALUES "
                    f"({', '.join('?' * (len(cols) + 2))})", rows)
    con.commit()
    con.close()


def run(hands: int = 4000, samples: int = 20, sizes=None, out=sys.stdout) -> dict:
    from starlette.testclient import TestClient

    from mjcam.ledger import Ledger
    from mjcam.web.app import create_app

    tmp = tempfile.mkdtemp(prefix="mjcam-ledger-")
    db = os.path.join(tmp, "g.sqlite")
    ledger = Ledger(db)
    lean = "view" in inspect.signature(ledger.record).parameters
    app = create_app(db)
    client = TestClient(app, base_url="http://127.0.0.1:8000")
    client.headers["X-Mjcam-Token"] = app.state.token
    gid = ledger.create_game(PLAYERS)["id"]
    ledger.record(gid, "first-hand", "win", WIN, 0, 2)
    n = 0
    found = {}
    for size in sizes or sorted({100, 1000, hands}):
        _fill(db, gid, size)
        kinds = {"record (write and game)": lambda k: ledger.record(gid, f"bench-{k:05d}", "win", WIN, 0, 2)}
        if lean:
            kinds["record, write alone"] = lambda k: ledger.record(gid, f"bench-{k:05d}", "win", WIN, 0, 2, view=False)
        kinds["POST hands (in process)"] = lambda k: client.post(
            f"/api/games/{gid}/hands", json={"request_id": f"bench-{k:05d}", "kind": "win", "hand": WIN, "winner": 0,
                                              "discarder": 2})
        for kind, do in kinds.items():
            times = []
            for _ in range(samples):
                n += 1
                t0 = time.perf_counter()
                do(n)
                times.append(time.perf_counter() - t0)
            found[(kind, size)] = statistics.median(times) * 1e3
    print(f"{'hands in the game':<26}" + "".join(f"{s:>9}" for s in sorted({s for _, s in found})), file=out)
    for kind in dict.fromkeys(k for k, _ in found):
        print(f"{kind:<26}" + "".join(f"{found[(kind, s)]:>9.2f}" for s in sorted({s for k, s in found if k == kind})),
              file=out)
    print("(milliseconds a hand, median of %d)" % samples, file=out)
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--samples", type=int, default=20)
    a = ap.parse_args(argv)
    run(a.hands, a.samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
