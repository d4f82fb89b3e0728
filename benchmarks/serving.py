"""A real ``mjcam serve`` on loopback for the benchmarks and the tests: a free port, the server
started there and waited for until it answers (or has stopped)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve(db: str, port: int, *options: str, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
          wait: float = 90.0) -> subprocess.Popen:
    """``mjcam serve --port PORT --db DB OPTIONS...`` started from the checkout; returns once
    ``/api/meta`` answers. A server that stops or does not answer within ``wait`` seconds (a busy
    machine starts it slowly) is a RuntimeError carrying the end of what it printed."""
    return started(["serve", "--port", str(port), "--db", db, *options], f"http://127.0.0.1:{port}/api/meta",
                   "the server", stdout=stdout, stderr=stderr, wait=wait)


def started(args: list[str], url: str, what: str, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            wait: float = 90.0) -> subprocess.Popen:
    """``mjcam ARGS...`` started from the checkout; returns once ``url`` answers. One that stops or
    does not answer within ``wait`` seconds is a RuntimeError naming ``what`` and carrying the end of
    what it printed."""
    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "mjcam", *args], cwd=ROOT, stdout=stdout, stderr=stderr)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(url, timeout=1)
            return proc
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    said = proc.stderr.read().decode(errors="replace")[-500:] if stderr == subprocess.PIPE else ""
    raise RuntimeError(f"{what} did not start: " + said)
