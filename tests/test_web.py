"""`mjcam serve`: the API through the in-process client, the ledger's guarantees, a load test
and a kill -9 restart on loopback."""

import concurrent.futures as cf
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from conftest import free_port, serve  # noqa: E402
from mjcam.ledger import MIGRATIONS, Ledger, LedgerError  # noqa: E402
from mjcam.web.app import MAX_UPLOAD, create_app  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HONOURS = os.path.join(ROOT, "samples", "hand-honours.jpg")
PLAYERS = ["Ann", "Bo", "Cy", "Di"]
WIN = "[RdRdRd] [123s] [999s] 45s NN +6s"  # 5 fan, 16 points under hk-old-style


def page_client(app) -> TestClient:
    """A client as the app's own page is: at the server's address, with the page's token."""
    c = TestClient(app, base_url="http://127.0.0.1:8000")
    c.headers["X-Mjcam-Token"] = c.get("/api/meta").json()["token"]
    return c


@pytest.fixture
def client(tmp_path):
    return page_client(create_app(str(tmp_path / "games.sqlite")))


def _game(client, **kw):
    r = client.post("/api/games", json={"players": PLAYERS, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def _record(client, g, rid, **kw):
    body = {"request_id": rid, "kind": "win", "hand": WIN, "winner": 1, "discarder": 2,
            "expected_hands": g["hands_recorded"], **kw}
    return client.post(f"/api/games/{g['id']}/hands", json=body)


def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and 'capture="environment"' in r.text and "/static/app.js" in r.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../ledger.py").status_code == 404
    m = client.get("/api/meta").json()
    assert len(m["tiles"]) == 42 and len(m["presets"]) == 5 and not m["pin_required"]


def test_new_game_and_bad_games(client):
    g = _game(client, preset="hk-new-style", house={"min_fan": 1}, round="S")
    assert g["players"] == PLAYERS and g["seats"] == ["E", "S", "W", "N"] and g["round"] == "S"
    assert g["totals"] == [0, 0, 0, 0] and g["house"] == {"min_fan": 1}
    for body, words in ((["Ann", "Bo", "Cy"], "four player names"), (["Ann", "Bo", "Cy", "ann"], "different names")):
        r = client.post("/api/games", json={"players": body})
        assert r.status_code == 400 and words in r.json()["error"]
    r = client.post("/api/games", json={"players": PLAYERS, "house": {"min_fan": -5}})
    assert r.status_code == 400 and "min_fan: expected a whole number" in r.json()["error"]
    assert "unknown preset" in client.post("/api/games", json={"players": PLAYERS, "preset": "x"}).json()["error"]
    assert client.post("/api/games", json={"players": PLAYERS, "house": {"table": "nope"}}).status_code == 400
    assert client.post("/api/games", content=b"{not json").status_code == 400
    assert client.get("/api/games/999").status_code == 404
    assert [x["id"] for x in client.get("/api/games").json()] == [g["id"]]


def test_upload_reads_the_photo_and_keeps_pictures(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/photos", content=open(HONOURS, "rb").read(),
                    headers={"content-type": "image/jpeg"})
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["recognition"]["hand"] == "19m 19p 119s E S W Rd Gd Wd +N"
    assert d["recognition"]["image"]["path"] is None  # no server path leaks
    for url in (d["annotated"], d["thumbnail"]):
        img = client.get(url)
        assert img.status_code == 200 and img.content[:2] == b"\xff\xd8"
    assert client.get("/api/photos/999/thumb.jpg").status_code == 404


def test_a_photo_s_flowers_are_doubted_in_a_game_without_them(client):
    bonus = open(os.path.join(ROOT, "samples", "hand-bonus.jpg"), "rb").read()
    trust = {}
    for flowers in (True, False):
        g = _game(client, flowers_in_play=flowers)
        r = client.post(f"/api/games/{g['id']}/photos", content=bonus, headers={"content-type": "image/jpeg"})
        assert r.status_code == 201, r.text
        assert any(t["code"][:1] in ("F", "S") and t["code"][1:].isdigit() for t in r.json()["recognition"]["tiles"])
        trust[flowers] = r.json()["trust"]
    # judged under the game's rules: with no bonus tiles in play, a hand showing them cannot be scored as read
    assert not trust[False]["auto"] and any("cannot be scored" in d["message"] for d in trust[False]["doubts"])
    assert trust[True] != trust[False]


@pytest.mark.parametrize("data, status, words", [
    (b"", 400, "the photo is empty: take it again, or choose another picture"),
    (b"GIF89a? just words pretending", 415, "not a picture"),
    ("cut", 400, "corrupt or truncated"),
])
def test_bad_uploads_are_refused(client, data, status, words, tmp_path):
    g = _game(client)
    if data == "cut":
        good = open(HONOURS, "rb").read()
        data = good[:len(good) // 3]
    r = client.post(f"/api/games/{g['id']}/photos", content=data, headers={"content-type": "image/jpeg"})
    assert r.status_code == status and words in r.json()["error"]
    assert "mjcam-upload" not in r.json()["error"]  # the temporary name is not shown
    assert not [f for f in os.listdir(tmp_path) if not f.startswith("games.sqlite")]


def test_oversized_upload_is_refused(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/photos", content=b"\0" * (MAX_UPLOAD + 1))
    assert r.status_code == 413 and "25 MB" in r.json()["error"]


def test_preview_scores_without_writing(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/preview", json={"hand": WIN, "winner": 1, "discarder": 2}).json()
    assert r["legal"] and r["score"]["fan"] == 5 and r["deltas"] == [-16, 64, -32, -16]
    assert {p["zh"] for p in r["score"]["patterns"]} >= {"混一色", "箭刻"}
    bad = client.post(f"/api/games/{g['id']}/preview", json={"hand": "123m 0p", "winner": 1})
    assert bad.status_code == 422 and "'0p'" in bad.json()["error"]
    nowin = client.post(f"/api/games/{g['id']}/preview", json={"hand": "123m 456m 789m 123p 4p +5p", "winner": 0})
    assert nowin.status_code == 200 and not nowin.json()["legal"]
    assert client.post(f"/api/games/{g['id']}/preview", json={"hand": WIN, "winner": 1, "discarder": 1}).status_code == 400
    assert client.get(f"/api/games/{g['id']}").json()["hands_recorded"] == 0


def test_record_is_idempotent_and_refuses_stale_and_illegal(client):
    g = _game(client)
    r1 = _record(client, g, "hand-0001")
    assert r1.status_code == 201 and r1.json()["totals"] == [-16, 64, -32, -16]
    again = _record(client, g, "hand-0001")  # the same POST retried
    assert again.status_code == 200 and again.json()["hands_recorded"] == 1
    bogus = _record(client, g, "hand-0009", kind="bogus")
    assert bogus.status_code == 400 and "expected one of win, draw" in bogus.json()["error"]
    same = _record(client, g, "hand-0001", hand="45s [123s] NN [RdRdRd] [999s] +6s")  # its sets in another order
    assert same.status_code == 200 and same.json()["hands_recorded"] == 1
    for other in ({"kind": "draw", "hand": None}, {"winner": 3}, {"flags": {"last_tile": True}}):  # another hand
        r = _record(client, g, "hand-0001", **other)
        assert r.status_code == 409 and "already used for another hand" in r.json()["error"]
    stale = _record(client, g, "hand-0002")  # the client still thinks no hand is recorded
    assert stale.status_code == 409 and "stale" in stale.json()["error"]
    g = r1.json()
    illegal = _record(client, g, "hand-0003", hand="123m 456m 789m 123p 4p +5p")
    assert illegal.status_code == 422 and "not a legal win" in illegal.json()["error"]
    assert _record(client, g, "x").status_code == 400  # request id too short
    h = client.get(f"/api/games/{g['id']}").json()["history"]
    assert len(h) == 1 and h[0]["preset"] == "hk-old-style" and len(h[0]["preset_version"]) == 12


def test_deal_moves_on_as_hk_rules_say(client):
    g = _game(client)
    g = _record(client, g, "h-000001", winner=0, discarder=1).json()  # the dealer wins: keeps the deal
    assert g["dealer"] == 0 and g["round"] == "E"
    g = client.post(f"/api/games/{g['id']}/hands", json={"request_id": "h-000002", "kind": "draw",
                                                          "expected_hands": 1}).json()
    assert g["dealer"] == 0  # dealer keeps the deal on a draw (the default setting)
    for i in range(4):  # four non-dealer wins: the deal goes round and the South round starts
        winner = (g["dealer"] + 1) % 4
        g = _record(client, g, f"h-1{i:05d}", winner=winner, discarder=g["dealer"]).json()
    assert g["dealer"] == 0 and g["round"] == "S"
    assert g["seats"] == ["E", "S", "W", "N"]
    g = client.post(f"/api/games/{g['id']}/undo", json={"request_id": "undo-0001", "expected_hands": 6}).json()
    assert g["round"] == "E" and g["dealer"] == 3 and g["seats"] == ["S", "W", "N", "E"]
    assert sum(g["totals"]) == 0 and len(g["history"]) == 5


def test_draw_passes_the_deal_when_the_game_says_so(client):
    g = _game(client, dealer_keeps_on_draw=False)
    g = client.post(f"/api/games/{g['id']}/hands", json={"request_id": "draw-0001", "kind": "draw"}).json()
    assert g["dealer"] == 1 and g["totals"] == [0, 0, 0, 0]


def test_csv_export(client):
    g = _game(client)
    _record(client, g, "hand-0001")
    r = client.get(f"/api/games/{g['id']}/export.csv")
    lines = r.text.splitlines()
    assert r.headers["content-type"].startswith("text/csv") and len(lines) == 2
    assert lines[0].startswith("hand,round,dealer,kind,winner") and ",Bo,Cy," in lines[1] and lines[1].endswith("-16,64,-32,-16")


def test_pin_guards_every_write(tmp_path):
    c = page_client(create_app(str(tmp_path / "g.sqlite"), pin="123456"))
    assert c.get("/api/meta").json()["pin_required"]
    r = c.post("/api/games", json={"players": PLAYERS})
    assert r.status_code == 401 and "PIN" in r.json()["error"]
    assert c.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": "000000"}).status_code == 401
    assert c.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": "123456"}).status_code == 201
    assert c.get("/api/games/1").status_code == 200  # reading needs no PIN


def test_ledger_migrations_are_named_and_applied_once(tmp_path):
    path = str(tmp_path / "l.sqlite")
    Ledger(path)
    Ledger(path)
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM migrations ORDER BY name")] == [m[0] for m in MIGRATIONS]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_history_keeps_what_was_recorded_when_rules_change(tmp_path, monkeypatch):
    from mjcam.scoring import presets, rules

    path = str(tmp_path / "l.sqlite")
    led = Ledger(path)
    g = led.create_game(PLAYERS)
    led.record(g["id"], "hand-0001", "win", WIN, 1, 2)
    old = presets.PRESET_DATA["hk-old-style"]
    monkeypatch.setitem(presets.PRESET_DATA, "hk-old-style",
                        dict(old, patterns={**old["patterns"], "half_flush": 6}))
    rules._plain_preset.cache_clear()
    try:
        assert led.preview(g["id"], WIN, 1, 2)["score"]["fan"] == 8  # the preset did change
        again = Ledger(path).game(g["id"])
        assert again["totals"] == [-16, 64, -32, -16] and again["history"][0]["fan"] == 5
        assert again["history"][0]["preset_version"] != rules.load_preset("hk-old-style").version
    finally:
        monkeypatch.undo()
        rules._plain_preset.cache_clear()


def test_ledger_refuses_nonsense():
    import tempfile

    led = Ledger(os.path.join(tempfile.mkdtemp(), "l.sqlite"))
    g = led.create_game(PLAYERS)
    with pytest.raises(LedgerError, match="kind is"):
        led.record(g["id"], "req-00001", "lose")
    with pytest.raises(LedgerError, match="no hand to undo"):
        led.undo(g["id"], "undo-00001")
    with pytest.raises(LedgerError, match="winner must be"):
        led.record(g["id"], "req-00002", "win", WIN, winner=7)


# ---------------------------------------------------------------- a real server on loopback

def test_load_then_kill_and_restart_keeps_every_hand(tmp_path):
    import httpx

    db, port = str(tmp_path / "load.sqlite"), free_port()
    proc = serve(db, port)
    base = f"http://127.0.0.1:{port}"
    photo = open(HONOURS, "rb").read()
    try:
        token = {"X-Mjcam-Token": httpx.get(f"{base}/api/meta").json()["token"]}
        g = httpx.post(f"{base}/api/games", json={"players": PLAYERS}, headers=token).json()

        def one(i: int):
            with httpx.Client(base_url=base, timeout=60, headers=token) as c:
                up = c.post(f"/api/games/{g['id']}/photos", content=photo)
                assert up.status_code == 201, up.text
                body = {"request_id": f"load-{i:04d}", "kind": "win", "hand": WIN, "winner": 0, "discarder": 2,
                        "photo_id": up.json()["photo_id"]}
                first = c.post(f"/api/games/{g['id']}/hands", json=body)
                retry = c.post(f"/api/games/{g['id']}/hands", json=body)  # a doubled submission
                return first.status_code, retry.status_code

        t0 = time.time()
        with cf.ThreadPoolExecutor(50) as pool:
            codes = list(pool.map(one, range(50)))
        assert time.time() - t0 < 240
        assert all(c == (201, 200) for c in codes)
        state = httpx.get(f"{base}/api/games/{g['id']}").json()
        # dealer (place 0) wins every hand on West's discard: 5 fan, 16 points, discarder pays double
        assert state["hands_recorded"] == 50 and state["totals"] == [50 * 64, -50 * 16, -50 * 32, -50 * 16]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    proc = serve(db, port)
    try:
        again = httpx.get(f"{base}/api/games/{g['id']}").json()
        assert again["hands_recorded"] == 50 and again["totals"] == state["totals"]
        db_rows = sqlite3.connect(db).execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM hands").fetchone()
        assert db_rows == (50, 50)
        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM photos").fetchone()[0] == 50
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_serve_prints_the_address_and_pin_for_the_table(tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mjcam", "serve", "--host", "0.0.0.0", "--port", str(port),
                             "--db", str(tmp_path / "t.sqlite")], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in proc.stderr:  # the address, a QR code, the PIN, the ledger
            lines.append(line)
            if line.startswith("mjcam: ledger"):
                break
    finally:
        proc.kill()
        proc.wait()
    assert "0.0.0.0" not in lines[0]
    assert f":{port}/ on a phone on the same network" in lines[0] or "no network address" in lines[0]
    pin = next(line for line in lines if "game PIN" in line)
    assert any(ch.isdigit() for ch in pin)


def test_the_page_installs_on_a_phone_home_screen(client):
    """A web app manifest the page links to: a name, the start address, standalone display and
    icons of 192 and 512 pixels that are the sizes they say."""
    import io
    import json

    from PIL import Image

    page = client.get("/").text
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    r = client.get("/static/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest+json")
    m = json.loads(r.text)
    assert m["name"] and m["short_name"] and m["start_url"] == "/" and m["display"] == "standalone"
    sizes = []
    for icon in m["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"] == "image/png"
        w, h = Image.open(io.BytesIO(got.content)).size
        assert f"{w}x{h}" == icon["sizes"]
        sizes.append(w)
    assert max(sizes) >= 512 and 192 in sizes
    assert client.get("/static/index.html").status_code == 404  # the page's own files only
