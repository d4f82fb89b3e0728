"""`mjcam review` in a real browser (Debian's Chromium driven by Playwright): on a phone, a person
corrects a tile of a photo that needs one, sets who won and how, scores and confirms; the hand is
written to the results, to the corrections file and into the night's game in its place. On a
desktop the photo and the form stand side by side."""

import os
import shutil
import signal

import pytest

playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")

from conftest import ROOT, free_port  # noqa: E402

from benchmarks.serving import started  # noqa: E402

from mjcam.batch import current, open_output  # noqa: E402
from mjcam.cli import main  # noqa: E402
from mjcam.ledger import Ledger  # noqa: E402

SAMPLES = os.path.join(ROOT, "samples")
PLAYERS = "Ann,Bob,Cat,Dan"


def _review(results, port, *options):
    return started(["review", str(results), "--port", str(port), "--no-open", *options],
                   f"http://127.0.0.1:{port}/api/review", "mjcam review")


def test_review_confirms_a_corrected_hand_into_results_corrections_and_game(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("hand-bonus.jpg", "hand-layout.jpg", "hand-pungs.jpg"):
        shutil.copy(os.path.join(SAMPLES, name), photos / name)
    out, ledger, fixes = tmp_path / "night.jsonl", tmp_path / "night.sqlite", tmp_path / "fixes.csv"
    assert main(["batch", str(photos), "--out", str(out), "--game", PLAYERS, "--ledger", str(ledger)]) == 0
    assert Ledger(str(ledger)).game(1)["hands_recorded"] == 2  # hand-layout.jpg needs a person
    shots = [str(tmp_path / "screens")] + ([os.environ["MJCAM_SCREENSHOTS"]] if os.environ.get("MJCAM_SCREENSHOTS") else [])
    for d in shots:
        os.makedirs(d, exist_ok=True)
    port = free_port()
    proc = _review(out, port, "--corrections", str(fixes), "--game", PLAYERS, "--ledger", str(ledger))
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,  # a phone
                                    bypass_csp=True)  # (wait_for_function evaluates strings; the page itself runs under its CSP)
            page.on("dialog", lambda d: d.accept())

            def shot(name):
                for d in shots:
                    page.screenshot(path=os.path.join(d, name), full_page=True)

            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#tiles button.tile")
            assert "hand-layout.jpg" in page.inner_text("#name")
            assert "not a legal win" in page.inner_text("#why")  # why it needs a person
            assert page.input_value("#hand") == "[345m] [777p] {RdRdRdRd} 9p 234s F2 S2 +9p"
            page.wait_for_function("[...document.querySelectorAll('#tiles img, #photo')].every((i) => i.complete)")
            assert page.evaluate("document.querySelector('#photo').naturalWidth") > 0  # the photo, tiles drawn
            crops = page.evaluate("[...document.querySelectorAll('#tiles img.crop')].map((i) => i.naturalWidth)")
            assert crops and all(w > 0 for w in crops)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
            shot("review-1-phone.png")
            # the 2s of the 234s run is really a 3s: tap it, choose 3s from the tile pictures
            codes = page.evaluate("[...document.querySelectorAll('#tiles button.tile .code')].map((c) => c.textContent)")
            page.locator("#tiles button.tile").nth(codes.index("2s")).click()
            page.wait_for_selector("#picker[open]")
            page.click("#picker-tiles button.tile[data-code='3s']")
            assert "334s" in page.input_value("#hand") and "2s" not in page.input_value("#hand")
            # a phantom tile goes by two taps, as in the table app: the 9p that is not the winning tile
            page.locator("#tiles button.tile:not(.winning)", has_text="9p").first.click()
            page.wait_for_selector("#picker[open]")
            assert page.is_visible("#remove-tile") and page.is_visible("#move-to button")
            page.click("#remove-tile")
            assert page.is_hidden("#picker") and page.input_value("#hand").count("9p") == 1
            assert page.input_value("#hand").endswith("+9p")
            # a tile moved out of its set and back
            pung = page.locator("#tiles button.tile", has_text="7p").first
            pos = pung.get_attribute("data-pos")
            pung.click()
            page.locator("#move-to button", has_text="concealed").first.click()
            assert "[77p]" in page.input_value("#hand")
            page.click(f"#tiles button.tile[data-pos='{pos}']")
            page.locator("#move-to button", has_text="7p 7p").click()
            assert "[777p]" in page.input_value("#hand")
            # what a set is, by its label: the pung made an exposed kong, then melded again
            def set_as(code, kind):
                page.locator("#tiles .set", has=page.locator("button.tile", has_text=code)).locator(
                    "button.set-label").click()
                page.wait_for_selector("#set-menu[open]")
                page.click(f"#set-menu button[data-as='{kind}']")
                assert page.is_hidden("#set-menu")

            # a concealed kong shown with face-down tiles is offered only as a kong: a face-down tile is a kong's
            page.locator("#tiles .set", has=page.locator("button.tile", has_text="Rd")).locator(
                "button.set-label").click()
            page.wait_for_selector("#set-menu[open]")
            assert page.is_disabled("#set-menu button[data-as='melded']")
            assert "face-down" in page.get_attribute("#set-menu button[data-as='concealed']", "title")
            assert page.is_enabled("#set-menu button[data-as='kong']")
            page.keyboard.press("Escape")
            set_as("7p", "kong")
            assert "[7777p]" in page.input_value("#hand")
            set_as("7p", "melded")
            assert "[777p]" in page.input_value("#hand") and "7777p" not in page.input_value("#hand")
            shot("review-1b-edited.png")
            page.fill("#hand", "[RdRdRd] [123s] [999s] 45s NN +6s")  # or the whole hand typed
            page.select_option("#winner", "Cat")
            page.select_option("#discarder", "Ann")
            page.click("#score")
            page.wait_for_selector("#result:not([hidden])")
            assert "fan" in page.inner_text("#result") and "points" in page.inner_text("#result")
            # the payments by the players' names, in their order: Cat won on Ann's discard
            pays = page.evaluate("[...document.querySelectorAll('#result .payments > div')].map((d) => d.innerText)")
            assert [p.split("\n")[0] for p in pays] == ["Ann", "Bob", "Cat", "Dan"], pays
            assert pays[2].split("\n")[-1].startswith("+") and pays[0].split("\n")[-1].startswith("-")
            shot("review-2-scored.png")
            page.click("#confirm")
            page.wait_for_function("document.querySelector('#message').textContent.includes('Confirmed')")
            assert "0 to confirm" in page.inner_text("#message")
            assert "4 hands" not in page.inner_text("#game") and "3 hands" in page.inner_text("#game")
            shot("review-3-confirmed.png")
            # a desktop: the photo beside the form
            page.set_viewport_size({"width": 1280, "height": 900})
            page.evaluate("window.scrollTo(0, 0)")
            left, right = page.locator("#left").bounding_box(), page.locator("#right").bounding_box()
            assert right["x"] >= left["x"] + left["width"] and abs(right["y"] - left["y"]) < 80
            shot("review-4-desktop.png")
            browser.close()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    output = open_output(str(out))
    try:
        recs = {os.path.basename(r["path"]): r for r in current(output.records())}
    finally:
        output.close()
    layout = recs["hand-layout.jpg"]
    assert layout["confirmed"] and layout["hand"] == "[RdRdRd] [123s] [999s] 45s NN +6s"
    assert layout["given"] == {"winner": "Cat", "discarder": "Ann", "flags": []}
    assert "hand-layout.jpg,[RdRdRd] [123s] [999s] 45s NN +6s,Cat,Ann," in fixes.read_text()
    g = Ledger(str(ledger)).game(1)
    assert [h["winner"] for h in g["history"]] == [0, 2, 1] and g["history"][1]["discarder"] == 0
    assert sum(g["totals"]) == 0
    # a later batch run keeps the person's hand, and the game as it is
    lines = len(out.read_text().splitlines())
    assert main(["batch", str(photos), "--out", str(out), "--corrections", str(fixes), "--game", PLAYERS,
                 "--ledger", str(ledger)]) == 0
    assert len(out.read_text().splitlines()) == lines and Ledger(str(ledger)).game(1)["history"] == g["history"]
