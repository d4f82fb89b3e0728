"""The table app in a real browser: Debian's Chromium driven by Playwright plays a four-hand game —
a photo upload with a tile corrected, a typed hand, a drawn hand, a second photo — and checks
the final totals against the ledger. Screenshots go to the test's folder (and to
$MJCAM_SCREENSHOTS when set)."""

import os

import pytest

from conftest import CHROMIUM, ROOT, screen_dirs, shooter, table_app

pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")

SAMPLES = os.path.join(ROOT, "samples")


def test_four_hand_game_in_the_browser(tmp_path):
    import httpx

    shots = screen_dirs(tmp_path)
    with table_app(tmp_path, viewport={"width": 412, "height": 915}, device_scale_factor=1) as (page, base):  # a phone
        shot = shooter(page, shots)

        page.goto(base + "/")
        for i, name in enumerate(["Ann", "Bo", "Cy", "Di"]):
            page.fill(f"input[name=p{i}]", name)
        shot("1-new-game.png")
        page.click("#start-game")
        page.wait_for_selector("#game:not([hidden])")

        # hand 1: photograph, correct a tile (the second 1s is really a 9s), score, record
        page.set_input_files("#photo", os.path.join(SAMPLES, "hand-honours.jpg"))
        page.wait_for_selector("#reading:not([hidden]) button.tile")
        assert page.input_value("#hand") == "19m 19p 119s E S W Rd Gd Wd +N"
        assert "no tile set apart as the winning tile" in page.inner_text("#notes")  # the recogniser's notes
        page.locator("#tiles button.tile").nth(1).click()
        page.click("#picker-tiles button.tile[data-code='9s']")
        assert page.input_value("#hand") == "19m 19p 199s E S W Rd Gd Wd +N"
        page.select_option("#winner", "2")
        page.select_option("#discarder", "3")
        page.click("#score")
        page.wait_for_selector("#breakdown:not([hidden])")
        assert "Thirteen Orphans" in page.inner_text("#breakdown")
        if not page.evaluate("document.documentElement.classList.contains('no-cjk')"):  # a Chinese font installed
            assert "十三么" in page.inner_text("#breakdown")
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
        page.select_option("#discarder", "self")
        page.click("#score")
        page.wait_for_selector("#points")
        assert not page.is_disabled("#record"), page.inner_text("#message")
        page.click("#record")
        page.wait_for_function("document.querySelectorAll('#history li').length == 4")
        shot("3-after-four-hands.png")

        shown = [int(page.inner_text(f"#totals td[data-player='{i}']")) for i in range(4)]
        game = httpx.get(f"{base}/api/games/1").json()
        assert game["hands_recorded"] == 4 and shown == game["totals"] and sum(shown) == 0
        kinds = [h["kind"] for h in game["history"]]
        assert kinds == ["win", "win", "draw", "win"]
        assert game["history"][0]["hand"].startswith("19m 19p 199s") and game["history"][0]["photo_id"] == 1
        assert game["history"][3]["photo_id"] == 2 and game["history"][1]["photo_id"] is None
    for d in shots:
        assert sorted(os.listdir(d))[:3] == ["1-new-game.png", "2-photo-corrected-and-scored.png",
                                             "3-after-four-hands.png"]


FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{fonts}</dir><cachedir>{cache}</cachedir></fontconfig>
"""
MAHJONG_CHARS = "[\\u{1F000}-\\u{1F02B}]"


def test_tiles_are_pictures_on_a_phone_without_chinese_fonts(tmp_path):
    """At 390x844 in a Chromium that has no CJK or emoji font (only DejaVu), every tile on the page
    is a picture and none relies on a mahjong character; read tiles show their crop of the photo;
    the next hand's form starts empty; a message does not follow to another screen."""
    import httpx

    latin = "/usr/share/fonts/truetype/dejavu"
    if not os.path.isdir(latin):
        pytest.skip("no DejaVu fonts (apt-get install fonts-dejavu-core)")
    conf = tmp_path / "fonts.conf"
    conf.write_text(FONTS_CONF.format(fonts=latin, cache=tmp_path / "fc-cache"))
    shots = screen_dirs(tmp_path)
    with table_app(tmp_path, env={**os.environ, "FONTCONFIG_FILE": str(conf)},
                   viewport={"width": 390, "height": 844}, device_scale_factor=2) as (page, base):
        assert httpx.get(base + "/favicon.ico").status_code == 200
        assert httpx.get(base + "/static/tiles/9p.svg").headers["content-type"].startswith("image/svg+xml")
        assert httpx.get(base + "/static/tiles/..%2Fapp.js.svg").status_code == 404
        shot = shooter(page, shots)

        def no_font_tiles():
            """Every tile element: a loaded picture, and no mahjong character anywhere on the page."""
            return page.evaluate("""(re) => {
                const bad = [];
                const rx = new RegExp(re, "u");
                if (rx.test(document.body.innerText)) bad.push("a mahjong character in the page's text");
                document.querySelectorAll("button.tile, .set-pics").forEach((t) => {
                    if (rx.test(t.textContent)) bad.push("a mahjong character in " + t.outerHTML.slice(0, 80));
                    const imgs = t.querySelectorAll("img.face");
                    if (!imgs.length) bad.push("no picture in " + t.outerHTML.slice(0, 80));
                    imgs.forEach((i) => { if (!i.complete || !i.naturalWidth) bad.push("not loaded: " + i.src); });
                });
                return bad;
            }""", MAHJONG_CHARS)

        page.goto(base + "/")
        # the phone has no Chinese font: the page knows, and shows the pattern names in English only
        assert page.evaluate("document.documentElement.classList.contains('no-cjk')")
        page.click("#start-game")
        page.wait_for_selector("#game:not([hidden])")
        page.select_option("#phone", "0")  # Ann's phone: a photo of tiles standing up is her hand
        page.set_input_files("#photo", os.path.join(SAMPLES, "hand-pungs.jpg"))
        page.wait_for_selector("#reading:not([hidden]) button.tile")
        page.wait_for_function("[...document.querySelectorAll('#tiles img')].every((i) => i.complete)")
        crops = page.evaluate("[...document.querySelectorAll('#tiles img.crop')].map((i) => i.naturalWidth)")
        assert len(crops) == page.locator("#tiles button.tile").count() and all(w > 0 for w in crops)
        page.click("#keypad-box summary")
        page.locator("#tiles button.tile").nth(0).click()
        page.wait_for_selector("#picker[open]")
        assert page.locator("#picker-tiles button.tile img.face").count() == 42
        assert no_font_tiles() == []
        shot("4-no-cjk-picker.png")
        page.click("#picker button[value=cancel]")
        if page.input_value("#winner") == "":  # which way up the tiles stand was not told: choose
            page.select_option("#winner", "0")
        else:
            assert "Winner proposed" in page.inner_text("#proposed")
        page.select_option("#discarder", "self")
        page.click("#score")
        page.wait_for_selector("#breakdown:not([hidden]) .scored-hand img.face")
        assert not page.is_visible("#breakdown .zh")  # Chinese names hidden, not drawn as boxes
        assert no_font_tiles() == []
        shot("5-no-cjk-reading-and-score.png")
        page.click("#record")
        page.wait_for_selector("#history li")
        # the next hand starts clean: nobody has won it yet, nor how
        assert page.input_value("#winner") == "" and page.input_value("#discarder") == ""
        assert page.input_value("#hand") == "" and page.is_hidden("#reading") and page.is_hidden("#breakdown")
        assert page.inner_text("#history .hand-no") == "1."  # the hand's number shows on a phone
        page.fill("#hand", "[RdRdRd] [123s] [999s] 45s NN +6s")
        page.click("#score")
        assert "choose who won" in page.inner_text("#message")
        page.click("#undo")
        page.wait_for_function("document.querySelector('#message').textContent.includes('undone')")
        page.click("#leave")
        page.wait_for_selector("#start:not([hidden])")
        assert page.is_hidden("#message")  # "Last hand undone" stays with the game screen
        shot("6-no-cjk-start.png")


def test_the_reading_is_corrected_by_taps_alone_on_a_phone(tmp_path):
    """At 390x844, every correction of a reading is a tap or two, and the hand text follows each:
    a tile changed, removed, added where the photo missed it, made the winning tile, moved out of a
    set and back, a set made a kong and melded or concealed again — and a hand whose every row was
    marked melded gets its winning tile back when a row is marked concealed. A long hand shows
    whole in the hand field, and the recorded hand's thumbnail shows the whole strip."""
    shots = screen_dirs(tmp_path)
    with table_app(tmp_path, viewport={"width": 390, "height": 844}, device_scale_factor=2) as (page, base):
        shot = shooter(page, shots)

        def hand():
            return page.input_value("#hand")

        def tap_tile(pos):
            page.click(f"#tiles button.tile[data-pos='{pos}']")
            page.wait_for_selector("#picker[open]")

        def set_as(group, kind):
            page.click(f"#tiles button.set-label[data-group='{group}']")
            page.wait_for_selector("#set-menu[open]")
            page.click(f"#set-menu button[data-as='{kind}']")

        page.goto(base + "/")
        page.click("#start-game")
        page.wait_for_selector("#game:not([hidden])")
        page.set_input_files("#photo", os.path.join(SAMPLES, "hand-layout.jpg"))
        page.wait_for_selector("#reading:not([hidden]) button.tile")
        start = "[345m] [777p] {RdRdRdRd} 9p 234s F2 S2 +9p"  # as the reader writes a hand
        assert hand() == start

        tap_tile(0)  # change a tile: two taps
        shot("7-tile-menu.png")
        page.click("#picker-tiles button.tile[data-code='5s']")
        assert hand() == "[345m] [777p] {RdRdRdRd} 9p 345s F2 S2 +9p" and page.is_hidden("#picker")
        tap_tile(0)
        page.click("#picker-tiles button.tile[data-code='2s']")
        assert hand() == start

        tap_tile(3)  # remove a tile: a phantom
        page.click("#remove-tile")
        assert hand() == "[345m] [777p] {RdRdRdRd} 234s F2 S2 +9p"
        page.click("#tiles button.add[data-add='0']")  # add a tile to the concealed tiles
        page.wait_for_selector("#picker[open]")
        assert page.is_hidden("#tile-actions")
        page.click("#picker-tiles button.tile[data-code='9p']")
        assert hand() == start

        tap_tile(2)  # make a tile the winning tile
        page.click("#make-winning")
        assert hand() == "[345m] [777p] {RdRdRdRd} 99p 23s F2 S2 +4s"
        assert page.locator("#tiles button.tile.winning").count() == 1

        tap_tile(9)  # a tile out of a set and back into it
        page.click("#move-to button[data-move='0']")
        assert hand() == "[345m] [77p] {RdRdRdRd} 799p 23s F2 S2 +4s"
        tap_tile(9)
        page.click("#move-to button[data-move='2']")
        assert hand() == "[345m] [777p] {RdRdRdRd} 99p 23s F2 S2 +4s"

        set_as(2, "kong")  # a set marked an exposed kong, then melded again
        assert hand() == "[345m] [7777p] {RdRdRdRd} 99p 23s F2 S2 +4s"
        kong = page.locator("#tiles .set", has=page.locator("button.set-label[data-group='2']"))
        middle = kong.locator("button.tile").nth(1).get_attribute("data-pos")
        tap_tile(middle)  # a kong's tile corrected to another: written as its tiles stand, not four of the first
        page.click("#picker-tiles button.tile[data-code='8p']")
        assert hand() == "[345m] [778p] {RdRdRdRd} 99p 23s F2 S2 +4s"
        tap_tile(middle)
        page.click("#picker-tiles button.tile[data-code='7p']")
        assert hand() == "[345m] [7777p] {RdRdRdRd} 99p 23s F2 S2 +4s"
        set_as(2, "melded")
        set_as(1, "concealed")  # the chow was not melded
        assert hand() == "[777p] {RdRdRdRd} 345m 99p 23s F2 S2 +4s"

        # a kind that cannot fit a set is not offered: the five concealed tiles are no melded set and no kong
        page.click("#tiles button.set-label[data-group='0']")
        page.wait_for_selector("#set-menu[open]")
        assert all(page.is_disabled(f"#set-menu button[data-as='{k}']") for k in ("melded", "kong", "concealed_kong"))
        assert page.is_disabled("#set-menu button[data-as='concealed']")  # (what it is now)
        assert "3 or 4 tiles" in page.get_attribute("#set-menu button[data-as='melded']", "title")
        page.keyboard.press("Escape")
        # the winning tile moved into a melded set: the last concealed tile is taken, and the page says so
        won = page.locator("#tiles button.tile.winning").get_attribute("data-pos")
        tap_tile(won)
        page.locator("#move-to button", has_text="7p 7p 7p").click()
        assert hand().endswith(" +5m") and "5m" in page.inner_text("#edit-note")
        tap_tile(won)
        page.locator("#move-to button", has_text="concealed").first.click()
        tap_tile(won)
        page.click("#make-winning")
        assert hand() == "[777p] {RdRdRdRd} 345m 99p 23s F2 S2 +4s"
        set_as(1, "melded")  # melded after all
        assert hand() == "[345m] [777p] {RdRdRdRd} 99p 23s F2 S2 +4s"
        shot("8-edited-reading.png")

        page.select_option("#winner", "1")  # South: F2 and S2 are South's own flower and season
        page.select_option("#discarder", "self")
        page.click("#score")
        page.wait_for_selector("#points")
        assert not page.is_disabled("#record"), page.inner_text("#message")
        page.click("#record")
        page.wait_for_selector("#history li img")
        page.wait_for_function("document.querySelector('#history li img').complete")
        # the thumbnail shows the whole strip: drawn at the photo's own shape, inside the page
        natural, drawn, fit, right = page.evaluate("""() => { const i = document.querySelector('#history li img');
            const r = i.getBoundingClientRect();
            return [i.naturalWidth / i.naturalHeight, r.width / r.height, getComputedStyle(i).objectFit, r.right]; }""")
        assert fit != "cover" and abs(drawn - natural) / natural < 0.05 and right <= 390

        # a long hand shows whole in the hand field
        page.fill("#hand", "[1m1m1m1m] [2p2p2p2p] {3s3s3s3s} {EEEE} 9m 9m 9m Wd Wd F1 F2 F3 F4 S1 S2 S3 S4 +Wd")
        page.dispatch_event("#hand", "input")
        whole = page.evaluate("""() => { const h = document.querySelector('#hand');
            return h.scrollHeight <= h.clientHeight + 1 && h.scrollWidth <= h.clientWidth + 1; }""")
        assert whole
        shot("9-long-hand.png")


def _fake_reading(codes, winning, notes, doubts):
    """What the server answers an upload of a photo read as concealed ``codes`` (a stand-in for a
    photo whose reading has these warnings)."""
    import json

    tiles = [{"code": c, "confidence": 0.99, "box": [40 * i, 0, 40 * i + 38, 50], "alternatives": []}
             for i, c in enumerate(codes)]
    hand = " ".join(c for i, c in enumerate(codes) if i != winning) + " +" + codes[winning]
    rec = {"image": {"path": None, "width": 800, "height": 60}, "tiles": tiles,
           "groups": [{"tiles": list(range(len(codes))), "melded": False, "kind": "concealed"}], "hand": hand,
           "needs_confirmation": [], "notes": notes, "winning": winning, "tops": None, "tops_sure": False}
    return json.dumps({"recognition": rec, "photo_id": None, "crops": [], "annotated": "data:,",
                       "trust": {"auto": False, "doubts": doubts, "readings": 1}})


def test_warnings_follow_the_edited_hand_and_record_says_why_it_is_closed(tmp_path):
    """At 390x844: the warnings of a hand read with a phantom tile go once a tap removes it (and come
    back, said of the hand as it stands, when a tile too many is added); a closed Record hand says
    why beside it; one hand recorded is said in the singular; an empty photo is refused in a
    player's words."""
    codes = "Rd Rd Rd 1s 2s 3s 9s 9s 9s 4s 5s N N 7m 6s".split()  # 7m: a phantom tile
    count = "15 tiles in the hand where a win has 14: a kong may not be set apart, a tile counted twice, " \
            "or one lying beside the hand taken into it"
    body = _fake_reading(codes, 14, [count], [{"kind": "hand", "message": "the proposed hand cannot be scored",
                                               "tile": None, "tiles": []}])
    with table_app(tmp_path, viewport={"width": 390, "height": 844}, device_scale_factor=2) as (page, base):
        page.goto(base + "/")
        page.click("#start-game")
        page.wait_for_selector("#game:not([hidden])")
        assert "0 hands recorded" in page.inner_text("#deal")
        assert "photograph or type it" in page.inner_text("#record-why")

        empty = tmp_path / "empty.jpg"
        empty.write_bytes(b"")
        page.set_input_files("#photo", str(empty))
        page.wait_for_function("document.querySelector('#message').textContent.includes('empty')")
        assert page.inner_text("#message") == "The photo is empty: take it again, or choose another picture."

        page.route("**/api/games/1/photos", lambda route: route.fulfill(
            status=200, content_type="application/json", body=body))
        page.set_input_files("#photo", os.path.join(SAMPLES, "hand-pungs.jpg"))
        page.wait_for_selector("#reading:not([hidden]) button.tile")
        notes = page.inner_text("#notes")
        assert "The proposed hand cannot be scored." in notes and "15 tiles in the hand" in notes

        page.click("#tiles button.tile[data-pos='13']")  # the phantom 7m: removed by two taps
        page.wait_for_selector("#picker[open]")
        page.click("#remove-tile")
        assert page.input_value("#hand") == "12345999s NN RdRdRd +6s"
        page.wait_for_timeout(700)  # (the hand as it stands is checked after a pause in the edits)
        notes = page.inner_text("#notes")
        assert "cannot be scored" not in notes and "15 tiles" not in notes, notes
        # a tile too many again: said of the hand as it stands
        page.click("#tiles button.add[data-add='0']")
        page.click("#picker-tiles button.tile[data-code='8m']")
        page.wait_for_function("document.querySelector('#notes').textContent.includes('cannot be scored')")
        assert "this one has 15" in page.inner_text("#notes")
        page.click("#tiles button.tile[data-pos='15']")
        page.click("#remove-tile")
        page.wait_for_timeout(700)
        assert "cannot be scored" not in page.inner_text("#notes")

        page.select_option("#winner", "1")
        page.select_option("#discarder", "0")
        assert "score it first" in page.inner_text("#record-why")
        page.click("#score")
        page.wait_for_selector("#breakdown:not([hidden])")
        assert not page.is_disabled("#record") and page.is_hidden("#record-why")
        page.fill("#hand", "123m 456p 789s 234m 5p +5p")  # all chows: below the minimum
        page.dispatch_event("#hand", "input")
        page.click("#score")
        page.wait_for_function("document.querySelector('#record-why').textContent.includes('minimum')")
        assert page.is_disabled("#record")
        why = page.locator("#record-why").bounding_box()
        rec = page.locator("#record").bounding_box()
        assert 0 <= why["y"] - (rec["y"] + rec["height"]) < 40  # just below the button, inside the phone
        assert why["x"] + why["width"] <= 390
        page.fill("#hand", "Rd Rd Rd 1s 2s 3s 9s 9s 9s 4s 5s N N +6s")
        page.dispatch_event("#hand", "input")
        page.click("#score")
        page.wait_for_function("!document.querySelector('#record').disabled")
        page.click("#record")
        page.wait_for_selector("#history li")
        assert "1 hand recorded" in page.inner_text("#deal")
