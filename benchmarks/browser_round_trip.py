"""The table app's round trip in a real browser with a 12 MP photo: upload, read, score.

    python -m benchmarks.browser_round_trip [--photo PHOTO] [--rounds 10]

A real ``mjcam serve`` on loopback and Debian's Chromium driven by Playwright (as
``tests/test_browser.py`` drives it), the page at a phone's size. The photo (default: the sample
``hand-pungs.jpg`` grown to 4000 x 3000, quality 92, as ``serve_latency`` grows it) is chosen on
the page's photo button ``--rounds`` times after a first, unmeasured, upload that loads the models.
Each round is timed from choosing the file to the reading on the page with its annotated picture
loaded (*read*), then from pressing Score to the score on the page (*score*). The size of each picture the
page hands to the network is compared with the file's: the phone sends the photo as it came, never
re-encoded. Printed:
the median and the slowest of each, and beside them the same photo read in this process by the
recogniser (the floor the app adds to).
"""

from __future__ import annotations

from benchmarks.serving import free_port, serve

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photo", help="the photo to upload (default: a sample hand grown to 12 MP)")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no chromium (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("no playwright (pip install '.[test]')") from None
    from benchmarks.serve_latency import _photo_12mp

    with tempfile.TemporaryDirectory() as tmp:
        photo = args.photo or _photo_12mp(tmp)
        if not os.path.isfile(photo):
            raise SystemExit(f"{photo}: no such file")
        size = os.path.getsize(photo)
        port = free_port()
        proc = serve(os.path.join(tmp, "bench.sqlite"), port, stderr=subprocess.DEVNULL)
        read_s, score_s = [], []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 412, "height": 915}, bypass_csp=True)
                page.on("dialog", lambda d: d.accept())
                # the size of each picture the page hands to fetch (a File or Blob body)
                page.add_init_script("""(() => { const f = window.fetch; window.mjcamSent = [];
                  window.fetch = (url, init) => { if (init && init.body instanceof Blob) window.mjcamSent.push(init.body.size);
                    return f(url, init); }; })();""")
                page.goto(f"http://127.0.0.1:{port}/")
                for i, name in enumerate(["Ann", "Bo", "Cy", "Di"]):
                    page.fill(f"input[name=p{i}]", name)
                page.click("#start-game")
                page.wait_for_selector("#game:not([hidden])")
                for k in range(max(1, args.rounds) + 1):
                    page.set_input_files("#photo", [])
                    t0 = time.perf_counter()
                    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/photos")):
                        page.set_input_files("#photo", photo)
                    page.wait_for_function("() => { const a = document.querySelector('#annotated');"
                                           " return !document.querySelector('#reading').hidden && a.src && a.complete"
                                           " && a.naturalWidth > 0 }")
                    t1 = time.perf_counter()
                    page.select_option("#winner", "0")
                    page.select_option("#discarder", "self")
                    page.evaluate("() => { document.querySelector('#breakdown').hidden = true; }")
                    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/preview")):
                        page.click("#score")
                    page.wait_for_selector("#breakdown:not([hidden])")
                    t2 = time.perf_counter()
                    if k:  # the first round loaded the models
                        read_s.append(t1 - t0)
                        score_s.append(t2 - t1)
                sent = page.evaluate("() => window.mjcamSent")
                browser.close()
        finally:
            proc.kill()
            proc.wait()
        from mjcam.vision.pipeline import Recognizer

        rec = Recognizer()
        rec(photo)
        floor = []
        for _ in range(5):
            t0 = time.perf_counter()
            rec(photo)
            floor.append(time.perf_counter() - t0)
    print(f"{len(read_s)} round trips of a {size / 1e6:.1f} MB photo in Chromium at a phone's size, loopback (ms)")
    print(f"{'':<44}{'median':>8}{'slowest':>9}")
    for what, ts in (("choose the photo -> reading shown", read_s), ("press Score -> score shown", score_s),
                     ("the round trip", [a + b for a, b in zip(read_s, score_s)])):
        print(f"{what:<44}{1000 * statistics.median(ts):>8.0f}{1000 * max(ts):>9.0f}")
    print(f"{'the recogniser in this process (floor)':<44}{1000 * statistics.median(floor):>8.0f}")
    same = bool(sent) and all(n == size for n in sent)
    print(f"bytes the page sent for the photo: {sorted(set(sent))} against the file's {size} "
          f"({'as it came' if same else 'NOT as it came'})")


if __name__ == "__main__":
    main()
