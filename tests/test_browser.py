"""The table app in a real browser: Debian's Chromium driven by Playwright plays a four-hand game —
a photo upload with a tile corrected, a typed hand, a drawn hand, a second photo — and checks
the final totals against the ledger. Screenshots go to the test's folder (and to
$MJCAM_SCREENSHOTS when set)."""

import os
import shutil
import signal

import pytest

playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")

from conftest import ROOT, free_port, serve  # noqa: E402

SAMPLES = os.path.join(ROOT, "samples")


def test_four_hand_game_in_the_browser(tmp_path):
    import httpx

    shots = [str(tmp_path / "screens")] + ([os.environ["MJCAM_SCREENSHOTS"]] if os.environ.get("MJCAM_SCREENSHOTS") else [])
    for d in shots:
        os.makedirs(d, exist_ok=True)
    port = free_port()
    proc = serve(str(tmp_path / "game.sqlite"), port)
    base = f"http://127.0.0.1:{port}"
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 412, "height": 915}, device_scale_factor=1)  # a phone
            page.on("dialog", lambda d: d.accept())

            def shot(name):
                for d in shots:
                    page.screenshot(path=os.path.join(d, name), full_page=True)

            page.goto(base + "/")
            for i, name in enumerate(["Ann", "Bo", "Cy", "Di"]):
                page.fill(f"input[name=p{i}]", name)
            shot("1-new-game.png")
            page.click("#start-game")
            page.wait_for_selector("#game:not([hidden])")

            # hand 1: photograph, correct a tile (the second 1s is really a 9s), score, record
            page.set_input_files("#photo", os.path.join(SAMPLES, "hand-honours.jpg"))
            page.wait_for_selector("#reading:not([hidden]) button.tile")
            assert page.input_value("#hand") == "1s 1s 9s 1m 9m 1p 9p Wd Rd Gd E S W +N"
            assert "no tile set apart as the winning tile" in page.inner_text("#notes")  # the recogniser's notes
            page.locator("#tiles button.tile").nth(1).click()
            page.click("#picker-tiles button.tile[data-code='9s']")
            assert page.input_value("#hand") == "1s 9s 9s 1m 9m 1p 9p Wd Rd Gd E S W +N"
            page.select_option("#winner", "2")
            page.select_option("#discarder", "3")
            page.click("#score")
            page.wait_for_selector("#breakdown:not([hidden])")
            assert "Thirteen Orphans" in page.inner_text("#breakdown") and "十三么" in page.inner_text("#breakdown")
            shot("2-photo-corrected-and-scored.png")
            page.click("#record")
            page.wait_for_selector("#history li")

            # hand 2: typed, no photo
            page.fill("#hand", "[RdRdRd] [123s] [999s] 45s NN +6s")
            page.select_option("#winner", "1")
            page.select_option("#discarder", "0")
            page.click("#score")
            page.wait_for_selector("#points")
            page.click("#record")
            page.wait_for_function("document.querySelectorAll('#history li').length == 2")

            # hand 3: drawn
            page.click("#draw")
            page.wait_for_function("document.querySelectorAll('#history li').length == 3")

            # hand 4: another photo, self-drawn
            page.set_input_files("#photo", os.path.join(SAMPLES, "hand-pungs.jpg"))
            page.wait_for_selector("#reading:not([hidden]) button.tile")
            page.select_option("#winner", "0")
            page.select_option("#discarder", "")
            page.click("#score")
            page.wait_for_selector("#points")
            assert not page.is_disabled("#record"), page.inner_text("#message")
            page.click("#record")
            page.wait_for_function("document.querySelectorAll('#history li').length == 4")
            shot("3-after-four-hands.png")

            shown = [int(page.inner_text(f"#totals td[data-player='{i}']")) for i in range(4)]
            browser.close()
        game = httpx.get(f"{base}/api/games/1").json()
        assert game["hands_recorded"] == 4 and shown == game["totals"] and sum(shown) == 0
        kinds = [h["kind"] for h in game["history"]]
        assert kinds == ["win", "win", "draw", "win"]
        assert game["history"][0]["hand"].startswith("19m 19p 199s") and game["history"][0]["photo_id"] == 1
        assert game["history"][3]["photo_id"] == 2 and game["history"][1]["photo_id"] is None
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    for d in shots:
        assert sorted(os.listdir(d))[:3] == ["1-new-game.png", "2-photo-corrected-and-scored.png",
                                             "3-after-four-hands.png"]
