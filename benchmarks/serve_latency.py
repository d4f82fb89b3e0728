"""Table app latency: upload of a 12 MP photo to annotated result, p50 and p95 over 20 requests.

    pip install '.[serve]' httpx
    python -m benchmarks.serve_latency [--requests 20]

A real ``mjcam serve`` on loopback (its own process, models loaded by a first warm-up request).
Each request: POST the photo, then GET the annotated picture it points to. Printed beside it,
the same photo read in-process by ``vision.recognize`` (the floor the server adds to).
"""

from __future__ import annotations

from benchmarks.serving import free_port, serve

import argparse
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _photo_12mp(folder: str) -> str:
    from PIL import Image

    src = os.path.join(ROOT, "samples", "hand-pungs.jpg")
    out = os.path.join(folder, "hand-12mp.jpg")
    Image.open(src).convert("RGB").resize((4000, 3000), Image.BICUBIC).save(out, quality=92)
    return out


def main(argv=None) -> None:
    import httpx

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=20)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        photo = _photo_12mp(tmp)
        data = open(photo, "rb").read()
        port = free_port()
        proc = serve(os.path.join(tmp, "bench.sqlite"), port, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=120) as c:
                c.headers["X-Mjcam-Token"] = c.get("/api/meta").json()["token"]  # writes carry the page's token
                gid = c.post("/api/games", json={"players": ["A", "B", "C", "D"]}).json()["id"]
                c.post(f"/api/games/{gid}/photos", content=data)  # warm-up: loads the models
                times = []
                for _ in range(args.requests):
                    t0 = time.perf_counter()
                    r = c.post(f"/api/games/{gid}/photos", content=data)
                    r.raise_for_status()
                    c.get(r.json()["annotated"]).raise_for_status()
                    times.append(time.perf_counter() - t0)
        finally:
            proc.kill()
            proc.wait()
        from mjcam.vision.pipeline import Recognizer

        rec = Recognizer()
        rec(photo)
        t0 = time.perf_counter()
        for _ in range(5):
            rec(photo)
        floor = (time.perf_counter() - t0) / 5
    times.sort()
    p50 = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"{args.requests} uploads of a 12 MP JPEG ({len(data) / 1e6:.1f} MB), one at a time, loopback")
    print(f"{'':<36}{'seconds':>10}")
    print(f"{'server p50 (upload -> annotated)':<36}{p50:>10.3f}")
    print(f"{'server p95':<36}{p95:>10.3f}")
    print(f"{'in-process recognize (floor)':<36}{floor:>10.3f}")
    print(f"server p50 / in-process: {p50 / floor:.2f}x")


if __name__ == "__main__":
    main()
