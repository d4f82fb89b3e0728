"""Peak memory reading pictures just under the 200 MP limit, on the command line and in the server.

    python -m benchmarks.decode_memory [--side 14100] [--keep DIR] [--no-server]

Pictures of 14100 x 14100 pixels (198.8 MP) that compress to almost nothing, one per pixel format:
16-bit grey, palette with a transparent colour, 1-bit, RGB, RGBA PNGs, a progressive JPEG (4:2:0) and a
baseline one. Each is read by ``mjcam recognize`` and by ``mjcam classify`` in a process of its
own (its peak resident memory, from getrusage), then uploaded to a real ``mjcam serve`` one at a
time and four at once (the server's VmHWM). Pictures whose decoder would need more than
vision.io.DECODE_BUDGET are refused before decoding; their lines say so. Takes a few minutes.
"""

from __future__ import annotations

from benchmarks.serving import free_port, serve

import argparse
import concurrent.futures as cf
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KINDS = ["grey16.png", "palette-transparent.png", "bilevel.png", "rgb.png", "rgba.png", "progressive-420.jpg",
         "baseline.jpg"]


def make(kind: str, side: int, path: str) -> None:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    if kind == "grey16.png":
        Image.new("I;16", (side, side), 1000).save(path)
    elif kind == "palette-transparent.png":
        im = Image.new("P", (side, side), 0)
        im.putpalette([200, 30, 30] * 256)
        im.save(path, transparency=0)
    elif kind == "bilevel.png":
        Image.new("1", (side, side), 1).save(path)
    elif kind == "rgb.png":
        Image.new("RGB", (side, side), (10, 200, 30)).save(path)
    elif kind == "rgba.png":
        Image.new("RGBA", (side, side), (10, 200, 30, 128)).save(path)
    elif kind == "progressive-420.jpg":
        Image.new("RGB", (side, side), (10, 200, 30)).save(path, progressive=True, subsampling=2, quality=90)
    elif kind == "baseline.jpg":
        Image.new("RGB", (side, side), (10, 200, 30)).save(path, quality=90)


_PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, r.returncode, "
         "(r.stderr.strip().splitlines() or [''])[-1][:120])")


def peak(*cmd) -> tuple[int, int, str]:
    """(peak MB, exit status, last line of stderr) of a command run in a process of its own."""
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], cwd=ROOT, capture_output=True, text=True).stdout
    mb, code, err = out.strip().split(" ", 2) if out.strip().count(" ") >= 2 else (*out.split(), "")
    return int(mb), int(code), err


def _hwm(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(x.split()[1]) // 1024 for x in fh if x.startswith("VmHWM"))


def server(paths: list[str], folder: str) -> list[str]:
    import httpx

    port = free_port()
    proc = serve(os.path.join(folder, "mem.sqlite"), port, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    lines = []
    try:
        c = httpx.Client(base_url=base, timeout=600)
        c.headers["X-Mjcam-Token"] = c.get("/api/meta").json()["token"]
        gid = c.post("/api/games", json={"players": ["A", "B", "C", "D"]}).json()["id"]
        c.post(f"/api/games/{gid}/photos", content=open(os.path.join(ROOT, "samples", "hand-honours.jpg"), "rb").read())
        lines.append(f"{'server, models loaded':<34}{_hwm(proc.pid):>8} MB")
        for p in paths:
            r = c.post(f"/api/games/{gid}/photos", content=open(p, "rb").read())
            lines.append(f"{'server, ' + os.path.basename(p):<34}{_hwm(proc.pid):>8} MB   HTTP {r.status_code}")
        four = [p for p in paths if p.endswith(("grey16.png", "rgb.png", "rgba.png", "palette-transparent.png"))]
        with cf.ThreadPoolExecutor(4) as pool:
            codes = list(pool.map(lambda p: c.post(f"/api/games/{gid}/photos", content=open(p, "rb").read()).status_code,
                                  four))
        lines.append(f"{'server, four at once':<34}{_hwm(proc.pid):>8} MB   HTTP {codes}")
    finally:
        proc.kill()
        proc.wait()
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--side", type=int, default=14100)
    ap.add_argument("--keep", metavar="DIR", help="make the pictures here (and keep them) instead of a temporary folder")
    ap.add_argument("--no-server", action="store_true")
    a = ap.parse_args(argv)
    folder = a.keep or tempfile.mkdtemp(prefix="mjcam-bombs-")
    os.makedirs(folder, exist_ok=True)
    paths = []
    for kind in KINDS:
        p = os.path.join(folder, kind)
        if not os.path.exists(p):
            make(kind, a.side, p)
        paths.append(p)
    print(f"{a.side}x{a.side} pictures ({a.side * a.side / 1e6:.1f} MP); peak resident memory of each process")
    print(f"{'':<34}{'peak':>11}")
    for p in paths:
        size = os.path.getsize(p) / 1e6
        for cmd in ("recognize", "classify"):
            mb, code, err = peak(sys.executable, "-m", "mjcam", cmd, p, "--json")
            note = "" if code == 0 else f"   refused: {err}"
            print(f"{cmd + ' ' + os.path.basename(p) + f' ({size:.1f} MB)':<34}{mb:>8} MB{note}")
    if not a.no_server:
        for line in server(paths, folder):
            print(line)


if __name__ == "__main__":
    main()
