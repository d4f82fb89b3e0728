"""A short run of benchmarks/serve_load.py: 50 clients at once for a few seconds against a real
`mjcam serve` on loopback, with a PIN: no 5xx, no transport error, no lost or doubled write, and
every malformed request a 4xx. (The full run: python -m benchmarks.serve_load --seconds 60.)"""

import importlib.util
import io
import os

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_fifty_clients_at_once_for_a_few_seconds():
    spec = importlib.util.spec_from_file_location("serve_load", os.path.join(ROOT, "benchmarks", "serve_load.py"))
    load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load)
    report = io.StringIO()
    r = load.run(clients=50, seconds=3, upload_share=0, games=3, out=report)
    assert not r["problems"] and not r["lost"], report.getvalue()
    assert r["rows"][0] == r["rows"][1] == r["recorded"] > 0
    assert len(r["latencies"]["malformed"]) > 0 and r["requests"] > 50
    rss = r["memory"]["end"].get("VmHWM")
    assert rss is None or rss < 1500, report.getvalue()
