"""The second round of probes from outside: PIN guessing from many addresses, slow-body floods,
lone surrogates, special files in a batch folder. Each probe says what held and exits 1 if not.

    python -m benchmarks.serve_probe [--addresses 300] [--slow 520] [--seconds 20] [--skip batch,...]

A real ``mjcam serve`` (its own process, with a PIN) on 127.0.0.1, as an attacker on the same
machine sees it:

- ``pin``: wrong PINs from ``--addresses`` loopback addresses (127.0.x.y: each one a client
  address of its own), two each; counted: judged (401) and refused unjudged (429), the log lines
  the server wrote about them, and whether a phone that gave the PIN before, and one new to the
  game after its ``Retry-After``, are let in;
- ``slow``: ``--slow`` connections each trickling a chunked body a byte every 2 s for ``--seconds``;
  meanwhile a new client asks for ``/api/meta`` every half second: how long it waits, and whether
  it is ever refused;
- ``text``: lone surrogates (``"\\ud800"``) as a player name, a request id, a hand, a JSON key:
  each must be a 400 with nothing stored; then a ledger that holds one all the same (written
  behind the server's back) must still be read: games, the game, its CSV, after a restart;
- ``batch``: ``mjcam batch`` on a folder holding a photo, a named pipe, a link to ``/dev/zero`` and
  a link out of the folder, under a time limit: every entry recorded, the photo read.
"""

from __future__ import annotations

from benchmarks.serving import free_port, serve

import argparse
import json
import os
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN = "246810"
PLAYERS = ["Ann", "Bo", "Cy", "Di"]


def _server(tmp: str, name: str = "probe.sqlite", *options: str):
    port = free_port()
    proc = serve(os.path.join(tmp, name), port, "--pin", PIN, *options, stderr=subprocess.PIPE)
    return proc, port


def _stop(proc) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return (err or b"").decode(errors="replace")


def probe_pin(tmp: str, addresses: int, out) -> bool:
    import httpx

    proc, port = _server(tmp, "pin.sqlite")
    base = f"http://127.0.0.1:{port}"
    try:
        token = httpx.get(base + "/api/meta").json()["token"]
        head = {"X-Mjcam-Token": token}
        phone = httpx.Client(base_url=base, headers={**head, "X-Mjcam-Pin": PIN},
                             transport=httpx.HTTPTransport(local_address="127.0.9.1"))
        ok_before = phone.post("/api/games", json={"players": PLAYERS}).status_code == 201
        judged = refused = other = 0
        t0 = time.monotonic()
        for n in range(addresses * 2):
            a = n % addresses
            with httpx.Client(base_url=base, headers={**head, "X-Mjcam-Pin": f"{n:06d}"},
                              transport=httpx.HTTPTransport(local_address=f"127.0.{a // 250 + 10}.{a % 250 + 1}")) as c:
                code = c.post("/api/games", json={"players": PLAYERS}).status_code
            judged += code == 401
            refused += code == 429
            other += code not in (401, 429)
        took = time.monotonic() - t0
        ok_during = phone.post("/api/games", json={"players": PLAYERS}).status_code == 201
        new = httpx.Client(base_url=base, headers={**head, "X-Mjcam-Pin": PIN},
                           transport=httpx.HTTPTransport(local_address="127.0.9.2"))
        r = new.post("/api/games", json={"players": PLAYERS})
        waited = 0
        while r.status_code == 429 and waited < 120:
            wait = int(r.headers.get("retry-after", "1"))
            time.sleep(wait)
            waited += wait
            r = new.post("/api/games", json={"players": PLAYERS})
        ok_new = r.status_code == 201
    finally:
        log = _stop(proc)
    lines = [x for x in log.splitlines() if "PIN" in x and "game PIN" not in x]
    print(f"pin: {addresses * 2} wrong PINs from {addresses} loopback addresses in {took:.1f} s: {judged} judged, "
          f"{refused} refused unjudged, {other} other; {len(lines)} log line(s); a phone that gave the PIN "
          f"{'let in' if ok_before and ok_during else 'HELD UP'} throughout; a new phone let in after "
          f"{waited} s" + ("" if ok_new else " (NOT let in)"), file=out)
    return other == 0 and judged <= 25 and len(lines) <= 3 and ok_before and ok_during and ok_new and waited <= 60


def probe_slow(tmp: str, slow: int, seconds: float, out) -> bool:
    import httpx

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < slow + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, slow + 1000), hard))
    proc, port = _server(tmp, "slow.sqlite")
    base = f"http://127.0.0.1:{port}"
    socks, stop = [], time.monotonic() + seconds
    waits, refused = [], 0
    try:
        token = httpx.get(base + "/api/meta").json()["token"]
        head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nX-Mjcam-Token: {token}"
                "\r\nContent-Type: application/json\r\n\r\n").encode()
        for _ in range(slow):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(head + b"1\r\n{\r\n")
                socks.append(s)
            except OSError:
                break
        opened = len(socks)

        def trickle():
            while time.monotonic() < stop:
                for s in socks:
                    try:
                        s.sendall(b"1\r\n \r\n")
                    except OSError:
                        pass
                time.sleep(2)

        t = threading.Thread(target=trickle, daemon=True)
        t.start()
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                ok = httpx.get(base + "/api/meta", timeout=10).status_code == 200
            except httpx.HTTPError:
                ok = False
            waits.append(time.monotonic() - t0)
            refused += not ok
            time.sleep(0.5)
        t.join()
        still = 0
        for s in socks:
            s.setblocking(False)
            try:
                still += s.recv(1) != b""
            except BlockingIOError:
                still += 1
            except OSError:
                pass
    finally:
        for s in socks:
            s.close()
        _stop(proc)
    print(f"slow: {opened} connections trickling a body a byte every 2 s for {seconds:.0f} s: a new client "
          f"asked {len(waits)} times, refused {refused}, longest wait {max(waits, default=0) * 1e3:.0f} ms; "
          f"{still} of the trickling connections still open at the end", file=out)
    return refused == 0 and max(waits, default=0) < 2 and still == 0


def probe_text(tmp: str, out) -> bool:
    import httpx

    proc, port = _server(tmp, "text.sqlite")
    base = f"http://127.0.0.1:{port}"
    db = os.path.join(tmp, "text.sqlite")
    bad = []
    try:
        headers = {"X-Mjcam-Token": httpx.get(base + "/api/meta").json()["token"], "X-Mjcam-Pin": PIN,
                   "Content-Type": "application/json"}
        gid = httpx.post(base + "/api/games", json={"players": PLAYERS}, headers=headers).json()["id"]
        cases = [("/api/games", '{"players": ["A\\ud800", "Bo", "Cy", "Di"]}'),
                 ("/api/games", '{"players": ["Ann", "Bo", "Cy", "Di"], "\\udfff": 1}'),
                 (f"/api/games/{gid}/hands", '{"request_id": "req-\\ud800-001", "kind": "draw"}'),
                 (f"/api/games/{gid}/hands", '{"request_id": "req-0000001", "kind": "win", "hand": "\\ud800", "winner": 1}'),
                 (f"/api/games/{gid}/preview", '{"hand": "123m\\ud800", "winner": 1}')]
        for path, body in cases:
            r = httpx.post(base + path, content=body.encode(), headers=headers)
            if r.status_code != 400:
                bad.append(f"{path} {body}: {r.status_code}")
        stored = sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0] + \
            sqlite3.connect(db).execute("SELECT COUNT(*) FROM hands").fetchone()[0]
        con = sqlite3.connect(db)  # written behind the server's back, as an older version stored it
        con.execute("UPDATE games SET players = ? WHERE id = ?", ('["A\\ud800", "Bo", "Cy", "Di"]', gid))
        con.commit()
        con.close()
    finally:
        _stop(proc)
    answers = []
    for restart in range(2):
        proc, port = _server(tmp, "text.sqlite")
        try:
            for path in ("/api/games", f"/api/games/{gid}", f"/api/games/{gid}/export.csv"):
                answers.append(httpx.get(f"http://127.0.0.1:{port}{path}").status_code)
        finally:
            _stop(proc)
    print(f"text: {len(cases)} requests with lone surrogates: {len(cases) - len(bad)} refused with 400"
          f"{'' if not bad else ' (not: ' + '; '.join(bad) + ')'}; rows stored by them: {stored - 1}; a ledger "
          f"holding one, read over two starts: {answers}", file=out)
    return not bad and stored == 1 and set(answers) == {200}


def probe_batch(tmp: str, out) -> bool:
    folder = os.path.join(tmp, "photos")
    os.makedirs(folder)
    shutil.copy(os.path.join(ROOT, "samples", "hand-honours.jpg"), folder)
    outside = os.path.join(tmp, "private.jpg")
    shutil.copy(os.path.join(ROOT, "samples", "hand-pungs.jpg"), outside)
    os.mkfifo(os.path.join(folder, "pipe.jpg"))
    os.symlink("/dev/zero", os.path.join(folder, "zero.jpg"))
    os.symlink(outside, os.path.join(folder, "link-out.jpg"))
    results = os.path.join(tmp, "batch.jsonl")
    t0 = time.monotonic()
    try:
        r = subprocess.run([sys.executable, "-m", "mjcam", "batch", folder, "--out", results], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        code = r.returncode
    except subprocess.TimeoutExpired:
        code = None
    took = time.monotonic() - t0
    recs = {}
    if os.path.exists(results):
        for line in open(results, encoding="utf-8"):
            if line.strip():
                rec = json.loads(line)
                recs[os.path.basename(rec["path"])] = rec["status"] + (f" ({rec['error']['kind']})"
                                                                      if rec.get("error") else "")
    print(f"batch: {'ended' if code is not None else 'STILL RUNNING after 300 s'} in {took:.0f} s; "
          + ", ".join(f"{k}: {v}" for k, v in sorted(recs.items())), file=out)
    return code is not None and len(recs) == 4 and not recs.get("hand-honours.jpg", "error").startswith("error")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--addresses", type=int, default=300)
    ap.add_argument("--slow", type=int, default=520)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--skip", default="", help="probes to leave out: pin, slow, text, batch (comma-separated)")
    a = ap.parse_args(argv)
    skip = set(a.skip.split(",")) - {""}
    tmp = tempfile.mkdtemp(prefix="mjcam-probe-")
    held = {}
    try:
        if "pin" not in skip:
            held["pin"] = probe_pin(tmp, a.addresses, sys.stdout)
        if "slow" not in skip:
            held["slow"] = probe_slow(tmp, a.slow, a.seconds, sys.stdout)
        if "text" not in skip:
            held["text"] = probe_text(tmp, sys.stdout)
        if "batch" not in skip and hasattr(os, "mkfifo"):
            held["batch"] = probe_batch(tmp, sys.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("held: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in held.items()))
    return 0 if all(held.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
