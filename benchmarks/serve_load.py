"""Table server under load: N clients at once for a bounded time on loopback; latency, errors, memory.

    python -m benchmarks.serve_load [--clients 50] [--seconds 60] [--upload-share 0.02]

A real ``mjcam serve`` (its own process, with a PIN, as on a table's Wi-Fi) on 127.0.0.1. Each
client, in its own thread with its own connection, loops until the time is up over: reading its
game, scoring a hand (preview), recording a hand (a new request id; one in five sent twice, as a
phone retries), a malformed request now and then (it must get a 4xx), and with
``--upload-share`` a photo upload. Reported: latency per kind of request (p50, p95, p99, max),
every answer that was a 5xx, a transport error or not what was expected, the server's memory
(resident at the start and the end, and its peak), and whether every recorded hand is in the
ledger exactly once (each 201 is a hand, each repeat answered 200 is not a second one).
Exit status 1 on any 5xx, transport error, unexpected answer or lost or doubled write.
"""

from __future__ import annotations

from benchmarks.serving import free_port, serve

import argparse
import collections
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PIN = "246810"
PLAYERS = ["Ann", "Bo", "Cy", "Di"]
WIN = "[RdRdRd] [123s] [999s] 45s NN +6s"  # 5 fan; the dealer (place 0) winning keeps the deal


def _memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in MB (empty where /proc is not there)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS", "VmHWM")):
                    out[line.split(":")[0]] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return out


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def run(clients: int = 50, seconds: float = 60.0, upload_share: float = 0.02, games: int = 5,
        seed: int = 0, out=sys.stdout) -> dict:
    """Run the load; returns the findings (also printed to ``out``)."""
    import httpx

    tmp = tempfile.mkdtemp(prefix="mjcam-load-")
    db = os.path.join(tmp, "load.sqlite")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = serve(db, port, "--pin", PIN)
    photo = open(os.path.join(ROOT, "samples", "hand-honours.jpg"), "rb").read()
    try:
        token = httpx.get(base + "/api/meta").json()["token"]
        headers = {"X-Mjcam-Token": token, "X-Mjcam-Pin": PIN}
        gids = [httpx.post(base + "/api/games", json={"players": PLAYERS}, headers=headers).json()["id"]
                for _ in range(games)]
        if upload_share > 0:  # the models loaded before the clock starts
            httpx.post(f"{base}/api/games/{gids[0]}/photos", content=photo, headers=headers, timeout=120)
        mem_start = _memory(proc.pid)
        latencies: dict[str, list[float]] = collections.defaultdict(list)
        problems: list[str] = []
        recorded: collections.Counter = collections.Counter()  # game -> hands answered 201
        lock = threading.Lock()
        samples: list[int] = []
        stop = time.monotonic() + seconds

        def sample():
            while time.monotonic() < stop:
                samples.append(_memory(proc.pid).get("VmRSS", 0))
                time.sleep(0.5)

        def client(n: int):
            rng = random.Random(seed * 1000 + n)
            with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
                k = 0
                while time.monotonic() < stop:
                    k += 1
                    gid = rng.choice(gids)
                    roll = rng.random()
                    t0 = time.perf_counter()
                    try:
                        if roll < upload_share:
                            kind, want = "upload", {201}
                            r = c.post(f"/api/games/{gid}/photos", content=photo)
                        elif roll < 0.35:
                            kind, want = "read", {200}
                            r = c.get(f"/api/games/{gid}")
                        elif roll < 0.6:
                            kind, want = "preview", {200}
                            r = c.post(f"/api/games/{gid}/preview", json={"hand": WIN, "winner": 0, "discarder": 2})
                        elif roll < 0.95:
                            kind, want = "record", {201}
                            body = {"request_id": f"load-{n}-{k}", "kind": "win", "hand": WIN, "winner": 0,
                                    "discarder": 2}
                            r = c.post(f"/api/games/{gid}/hands", json=body)
                            if r.status_code == 201:
                                with lock:
                                    recorded[gid] += 1
                                if rng.random() < 0.2:  # the phone did not hear back, and sends it again
                                    again = c.post(f"/api/games/{gid}/hands", json=body)
                                    if again.status_code != 200:
                                        with lock:
                                            problems.append(f"retry: {again.status_code} {again.text[:80]}")
                        else:
                            kind, want = "malformed", set(range(400, 500))
                            r = c.post(f"/api/games/{gid}/hands", json={"request_id": rng.randrange(10 ** 30),
                                                                         "players": "x" * rng.randrange(100)})
                    except httpx.HTTPError as e:
                        with lock:
                            problems.append(f"transport: {type(e).__name__}: {e}")
                        continue
                    dt = time.perf_counter() - t0
                    with lock:
                        latencies[kind].append(dt)
                        if r.status_code not in want:
                            problems.append(f"{kind}: {r.status_code} {r.text[:80]}")

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        watcher = threading.Thread(target=sample)
        t0 = time.monotonic()
        watcher.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        watcher.join()
        took = time.monotonic() - t0
        mem_end = _memory(proc.pid)
        states = {gid: httpx.get(f"{base}/api/games/{gid}").json()["hands_recorded"] for gid in gids}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    rows = sqlite3.connect(db).execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM hands").fetchone()
    lost = {gid: (recorded[gid], states[gid]) for gid in gids if recorded[gid] != states[gid]}
    fivexx = [p for p in problems if p.split(": ")[1][:1] == "5"]
    total = sum(len(v) for v in latencies.values())
    print(f"{clients} clients for {took:.0f} s on loopback: {total} requests, {total / took:.0f} a second", file=out)
    print(f"{'request':<11}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}", file=out)
    for kind in ("read", "preview", "record", "malformed", "upload"):
        v = latencies.get(kind)
        if v:
            print(f"{kind:<11}{len(v):>7}{statistics.median(v) * 1e3:>9.1f}{_pct(v, .95) * 1e3:>9.1f}"
                  f"{_pct(v, .99) * 1e3:>9.1f}{max(v) * 1e3:>9.1f}", file=out)
    print(f"server memory: {mem_start.get('VmRSS', '?')} MB at the start, {mem_end.get('VmRSS', '?')} MB at the "
          f"end, peak {mem_end.get('VmHWM', '?')} MB (resident, sampled max {max(samples, default=0)} MB)", file=out)
    print(f"writes: {sum(recorded.values())} hands answered 201, {sum(states.values())} in the ledger, "
          f"{rows[0]} rows with {rows[1]} distinct request ids; lost or doubled: {lost or 'none'}", file=out)
    print(f"problems: {len(problems)} ({len(fivexx)} 5xx)" + "".join(f"\n  {p}" for p in problems[:20]), file=out)
    return {"requests": total, "problems": problems, "fivexx": fivexx, "lost": lost, "rows": rows,
            "recorded": sum(recorded.values()), "memory": {"start": mem_start, "end": mem_end},
            "latencies": dict(latencies)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--upload-share", type=float, default=0.02, help="share of requests that upload a photo")
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    r = run(a.clients, a.seconds, a.upload_share, a.games, a.seed)
    ok = not r["problems"] and not r["lost"] and r["rows"][0] == r["rows"][1] == r["recorded"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
