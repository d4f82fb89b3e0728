"""Helpers shared by the tests: a real `mjcam serve` on loopback, and the table app it serves open
in Chromium driven by Playwright."""

import contextlib
import os
import shutil
import signal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from benchmarks.serving import free_port, serve  # noqa: E402,F401  (the tests' server helpers)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def screen_dirs(tmp_path) -> list[str]:
    """Where a browser test's screenshots go, made: the test's folder, and $MJCAM_SCREENSHOTS when set."""
    dirs = [str(tmp_path / "screens")] + ([os.environ["MJCAM_SCREENSHOTS"]] if os.environ.get("MJCAM_SCREENSHOTS") else [])
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    return dirs


def shooter(page, dirs):
    """``shot(name)``: a full-page screenshot of ``page`` saved as ``name`` in each of ``dirs``."""
    def shot(name):
        for d in dirs:
            page.screenshot(path=os.path.join(d, name), full_page=True)
    return shot


@contextlib.contextmanager
def table_app(tmp_path, env=None, **page_options):
    """``(page, base)``: `mjcam serve` on a new ledger in ``tmp_path`` (at ``base``) and a new page of
    Debian's Chromium (``env`` its environment where given; ``page_options`` for ``new_page``, the
    viewport say) on which every dialog is accepted. The page's CSP is bypassed: Playwright's
    wait_for_function evaluates strings, which the CSP forbids (tests/test_hardening_web.py plays the
    page under its CSP). The browser is closed when the block ends, and the server killed."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = serve(str(tmp_path / "game.sqlite"), port)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],
                                        **({"env": env} if env is not None else {}))
            page = browser.new_page(bypass_csp=True, **page_options)
            page.on("dialog", lambda d: d.accept())
            yield page, f"http://127.0.0.1:{port}"
            browser.close()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
