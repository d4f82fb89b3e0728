"""`mjcam serve` against misuse: foreign Host names (DNS rebinding), writes from other sites,
guessed PINs, oversized and malformed bodies, half-sent requests, missing security headers. The
in-process client for most; a real server on loopback, and Chromium, where the network or the
browser is the point."""

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from conftest import ROOT, free_port, serve  # noqa: E402
from mjcam.web.app import MAX_UPLOAD, create_app  # noqa: E402
from mjcam.web.guard import MAX_JSON, MAX_MESSAGE, Guard, PinThrottle  # noqa: E402

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
WIN = "[RdRdRd] [123s] [999s] 45s NN +6s"
PIN = "123456"


def _client(app, host="127.0.0.1:8000", client=("127.0.0.1", 50000), token=True, pin=None) -> TestClient:
    c = TestClient(app, base_url=f"http://{host}", client=client, raise_server_exceptions=False)
    if token:
        c.headers["X-Mjcam-Token"] = app.state.token
    if pin is not None:
        c.headers["X-Mjcam-Pin"] = pin
    return c


@pytest.fixture
def app(tmp_path):
    return create_app(str(tmp_path / "g.sqlite"))


@pytest.fixture
def pin_app(tmp_path):
    return create_app(str(tmp_path / "p.sqlite"), pin=PIN)


def _games(app) -> int:
    return len(app.state.ledger.games())


# ---------------------------------------------------------------- headers

def test_every_response_carries_the_security_headers(app):
    c = _client(app)
    c.post("/api/games", json={"players": PLAYERS})
    responses = [c.get("/"), c.get("/static/app.js"), c.get("/api/meta"), c.get("/api/games/1"),
                 c.get("/api/games/999"), c.get("/nowhere"), c.post("/api/games", json={"players": 5}),
                 c.get("/api/games/1/export.csv"), _client(app, host="attacker.example").get("/")]
    for r in responses:
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'self'" in csp, r.url
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"


# ---------------------------------------------------------------- Host and Origin

@pytest.mark.parametrize("pin", [None, PIN])
def test_foreign_host_names_are_refused_in_both_modes(tmp_path, pin):
    app = create_app(str(tmp_path / "h.sqlite"), pin=pin, hosts=["table.lan"])
    for host in ("attacker.example:8000", "attacker.example", "127.0.0.1.nip.io:8000", "localhost.attacker.example"):
        c = _client(app, host=host, pin=pin)
        assert c.get("/api/meta").status_code == 421
        r = c.post("/api/games", json={"players": PLAYERS})
        assert r.status_code == 421 and "host" in r.json()["error"]
    assert _games(app) == 0
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "192.168.1.20:8000", "table.lan:8000", "TABLE.LAN."):
        c = _client(app, host=host, pin=pin)
        assert c.get("/api/meta").status_code == 200, host
    assert _client(app, host="table.lan:8000", pin=pin).post("/api/games", json={"players": PLAYERS}).status_code == 201


@pytest.mark.parametrize("pin", [None, PIN])
def test_writes_from_other_sites_are_refused_in_both_modes(tmp_path, pin):
    app = create_app(str(tmp_path / "o.sqlite"), pin=pin)
    body = json.dumps({"players": PLAYERS})
    # a form posted from another site (text/plain, no custom header): no token
    form = _client(app, token=False, pin=pin).post("/api/games", content=body, headers={"content-type": "text/plain"})
    assert form.status_code == 403 and form.json()["code"] == "token"
    c = _client(app, pin=pin)  # even with the token and the right PIN
    for headers in ({"origin": "http://attacker.example"}, {"origin": "null"},
                    {"origin": "http://127.0.0.1:8001"}, {"origin": "http://127.0.0.1:8000.attacker.example"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                    {"origin": "http://127.0.0.1:8000", "sec-fetch-site": "cross-site"}):
        r = c.post("/api/games", content=body, headers={"content-type": "application/json", **headers})
        assert r.status_code == 403 and "own page" in r.json()["error"], headers
    assert _games(app) == 0
    same = {"origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"}
    g = c.post("/api/games", json={"players": PLAYERS}, headers=same)
    assert g.status_code == 201
    gid = g.json()["id"]
    hand = {"request_id": "hand-0001", "kind": "win", "hand": WIN, "winner": 1, "discarder": 2}
    assert c.post(f"/api/games/{gid}/hands", json=hand, headers={"origin": "http://evil.test"}).status_code == 403
    assert c.post(f"/api/games/{gid}/hands", json=hand, headers=same).status_code == 201
    assert c.post(f"/api/games/{gid}/undo", json={"request_id": "undo-0001"},
                  headers={"origin": "http://evil.test"}).status_code == 403
    assert app.state.ledger.game(gid)["hands_recorded"] == 1


def test_a_stale_token_asks_for_a_reload(app):
    r = _client(app, token=False).post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Token": "old"})
    assert r.status_code == 403 and r.json()["code"] == "token" and "reload" in r.json()["error"]
    assert TestClient(app, base_url="http://127.0.0.1").get("/api/meta").json()["token"] == app.state.token


# ---------------------------------------------------------------- the PIN

def test_wrong_pins_are_throttled_per_client_and_logged(pin_app, caplog):
    thief = _client(pin_app, client=("10.0.0.66", 4000))
    with caplog.at_level(logging.WARNING, logger="mjcam.serve"):
        for n in range(10):
            r = thief.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": f"{n:06d}"})
            assert r.status_code == 401
        r = thief.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": PIN})  # not even looked at
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0 and "try again" in r.json()["error"]
    logged = [m for m in caplog.messages if "PIN" in m]  # one line, then a summary, not a line a guess
    assert len(logged) == 1 and "wrong PIN from 10.0.0.66" in logged[0]
    phone = _client(pin_app, client=("10.0.0.7", 4000), pin=PIN)  # the table goes on
    assert phone.post("/api/games", json={"players": PLAYERS}).status_code == 201
    assert _games(pin_app) == 1
    with caplog.at_level(logging.WARNING, logger="mjcam.serve"):
        line = pin_app.state.table.throttle.report()
    assert line.startswith("10 wrong PINs and 1 request refused unjudged, from 1 address") and line in caplog.messages
    assert pin_app.state.table.throttle.report() is None  # nothing since


def test_at_most_ten_pins_a_minute_are_judged_from_one_client():
    now = [0.0]
    t = PinThrottle(PIN, clock=lambda: now[0])
    judged = 0
    for second in range(600):  # a guess every second for ten minutes
        now[0] = float(second)
        try:
            t.check("10.0.0.66", "000000")
        except Exception as e:
            judged += e.status == 401
    assert judged <= 10 * 10 + 1
    now[0] += 60
    t.check("10.0.0.66", PIN)  # a minute later the right PIN is taken again
    t.check("10.0.0.7", "１２３４５６")  # full-width digits, as a CJK keyboard types them


def test_guessing_from_many_addresses_is_slow_and_never_locks_the_table_out(caplog):
    now = [0.0]
    t = PinThrottle(PIN, clock=lambda: now[0], report_every=None)
    phone = t.check("192.168.1.7", PIN)  # a phone at the table, before the guessing starts
    assert phone
    judged = refused = 0
    with caplog.at_level(logging.WARNING, logger="mjcam.serve"):
        for n in range(600):  # 300 addresses, two guesses each, within a second
            now[0] = n / 600
            try:
                t.check(f"10.0.{n % 300 // 200}.{n % 300 % 200 + 1}", f"{n:06d}")
            except Exception as e:
                judged += e.status == 401
                refused += e.status == 429
            if n % 50 == 0:  # the table goes on meanwhile: with its session, and from its address
                assert t.check("192.168.1.7", PIN, phone) is None and t.check("192.168.1.7", None, phone) is None
                assert t.check("192.168.1.7", PIN)
        assert judged <= 11 and judged + refused == 600
        assert len(caplog.messages) == 1  # not a line a guess
        with pytest.raises(Exception) as e:  # a phone new to the game waits, but not long
            t.check("192.168.1.8", PIN)
        assert e.value.status == 429 and 1 <= int(e.value.headers["Retry-After"]) <= 15
        now[0] += int(e.value.headers["Retry-After"])
        assert t.check("192.168.1.8", PIN)
        line = t.report()
    assert line.startswith(f"{judged} wrong PINs and {refused + 1} requests refused unjudged, from 301 addresses")
    assert caplog.messages[-1] == line and t.report() is None
    judged = 0
    for second in range(600):  # ten minutes of guessing, ten a second from ever new addresses
        for k in range(10):
            now[0] = 1000 + second + k / 10
            try:
                t.check(f"10.1.{(second * 10 + k) % 250}.{second % 200}", "000000")
            except Exception as e:
                judged += e.status == 401
    assert judged <= 20 * 10  # a few a minute (a 6-digit PIN would take weeks), where before 6,000


def test_an_ipv6_block_counts_as_one_address():
    from mjcam.web.guard import address_key

    assert address_key("2001:db8:1:2::5") == address_key("2001:db8:1:2:ffff::1") != address_key("2001:db8:1:3::5")
    assert address_key("127.0.0.1") != address_key("127.3.4.5") and address_key("::1") == "::1"
    assert address_key("::ffff:192.168.1.9") == "192.168.1.9" and address_key("testclient") == "testclient"
    t = PinThrottle(PIN, report_every=None)
    for n in range(10):
        with pytest.raises(Exception):
            t.check(f"2001:db8::{n + 1:x}", "000000")
    with pytest.raises(Exception) as e:  # the next address of the same /64 is held up
        t.check("2001:db8::ff", PIN)
    assert e.value.status == 429


def test_the_table_app_hands_a_session_to_a_phone_that_gave_the_pin(pin_app):
    throttle = pin_app.state.table.throttle
    now = [0.0]
    throttle.clock = lambda: now[0]
    phone = _client(pin_app, client=("192.168.1.7", 4000), pin=PIN)
    r = phone.post("/api/games", json={"players": PLAYERS})
    given = r.headers["set-cookie"].lower()
    assert r.status_code == 201 and phone.cookies.get("mjcam_session")
    assert "httponly" in given and "samesite=strict" in given and "path=/" in given
    r = phone.post("/api/games", json={"players": PLAYERS})  # let in by its session: no new one
    assert r.status_code == 201 and "set-cookie" not in r.headers
    codes = []
    for n in range(60):  # guessing from 30 addresses
        r = _client(pin_app, client=(f"10.0.0.{n % 30 + 1}", 4000), pin=f"{n:06d}").post(
            "/api/games", json={"players": PLAYERS})
        codes.append(r.status_code)
    assert set(codes) == {401, 429} and codes.count(401) <= 11
    assert phone.post("/api/games", json={"players": PLAYERS}).status_code == 201
    bare = _client(pin_app, client=("192.168.1.7", 4001), pin=PIN)  # the same phone, its cookie lost
    assert bare.post("/api/games", json={"players": PLAYERS}).status_code == 201
    new = _client(pin_app, client=("192.168.1.9", 4000), pin=PIN)
    r = new.post("/api/games", json={"players": PLAYERS})
    assert r.status_code == 429 and int(r.headers["retry-after"]) <= 15
    now[0] += int(r.headers["retry-after"])
    assert new.post("/api/games", json={"players": PLAYERS}).status_code == 201
    assert _games(pin_app) == 5


def test_reads_need_the_pin_in_the_mode_that_asks_it(tmp_path):
    from mjcam.ledger import Ledger

    db = str(tmp_path / "r.sqlite")
    ledger = Ledger(db)
    gid = ledger.create_game(PLAYERS)["id"]
    pid = ledger.add_photo(gid, "00" * 32, {}, b"annotated", b"thumb")
    ledger.record(gid, "hand-0001", "win", WIN, 1, 2, photo_id=pid)
    reads = ["/api/games", f"/api/games/{gid}", f"/api/games/{gid}/export.csv", f"/api/photos/{pid}/thumb.jpg",
             f"/api/photos/{pid}/annotated.jpg"]
    open_app = create_app(db, pin=PIN)
    assert all(_client(open_app).get(p).status_code == 200 for p in reads)  # by default anyone reads
    app = create_app(db, pin=PIN, read_pin=True)
    stranger = _client(app, client=("10.0.0.66", 1))
    meta = stranger.get("/api/meta")
    assert meta.status_code == 200 and meta.json()["pin_required"] and meta.json()["pin_for_reading"]
    assert all(stranger.get(p).status_code == 200 for p in ("/", "/static/app.js", "/static/tiles/Rd.svg"))
    for p in reads:
        r = stranger.get(p)
        assert r.status_code == 401 and "PIN" in r.json()["error"], p
    r = stranger.post(f"/api/games/{gid}/preview", json={"hand": WIN, "winner": 1, "discarder": 2})
    assert r.status_code == 401
    assert stranger.get(reads[0], headers={"X-Mjcam-Pin": "000000"}).status_code == 401
    phone = _client(app, client=("10.0.0.7", 1))
    assert phone.get(reads[1], headers={"X-Mjcam-Pin": PIN}).status_code == 200
    assert all(phone.get(p).status_code == 200 for p in reads)  # the pictures and the CSV: the session alone
    assert not create_app(db, read_pin=True).state.table.read_pin  # no PIN, nothing to ask


def test_serve_says_who_can_read_and_asks_the_pin_for_reading_when_told(tmp_path):
    from mjcam.web.banner import banner

    lan = banner("192.168.1.20", 8000, "123456", "g.sqlite", qr=False)
    assert any("anyone on the network can read" in x and "--read-pin" in x for x in lan)
    closed = banner("192.168.1.20", 8000, "123456", "g.sqlite", qr=False, read_pin=True)
    assert not any("anyone" in x for x in closed) and any("before reading or changing" in x for x in closed)
    port = free_port()
    proc = serve(str(tmp_path / "s.sqlite"), port, "--read-pin")  # on this computer alone: a PIN made up
    base = f"http://127.0.0.1:{port}"
    try:
        assert httpx.get(base + "/api/meta").json()["pin_for_reading"] is True
        r = httpx.get(base + "/api/games")
        assert r.status_code == 401 and "PIN" in r.json()["error"]
        assert httpx.get(base + "/").status_code == 200
    finally:
        proc.kill()
        _, err = proc.communicate()
    pin = next(x for x in err.decode().splitlines() if x.startswith("mjcam: game PIN"))
    assert "before reading or changing" in pin and any(ch.isdigit() for ch in pin)


def test_no_endpoint_tells_a_right_pin_from_a_wrong_one(pin_app):
    gid = _client(pin_app, pin=PIN).post("/api/games", json={"players": PLAYERS}).json()["id"]
    right = _client(pin_app, client=("10.0.0.1", 1), pin=PIN)
    wrong = _client(pin_app, client=("10.0.0.2", 1), pin="654321")
    cases = [("/api/games", {}), ("/api/games", {"players": 5}), (f"/api/games/{gid}/undo", {}),
             (f"/api/games/{gid}/undo", {"request_id": 5}), (f"/api/games/{gid}/hands", {}),
             (f"/api/games/{gid}/hands", {"request_id": "hand-0001", "kind": "lose"}),
             ("/api/games/100000000000000000000000/undo", {"request_id": "undo-0001"})]
    for path, body in cases:
        a, b = right.post(path, json=body), wrong.post(path, json=body)
        assert (a.status_code, a.json()) == (b.status_code, b.json()) and 400 <= a.status_code < 500, (path, body)
    for path, content in ((f"/api/games/{gid}/undo", b"{not json"), (f"/api/games/{gid}/photos", b"")):
        a, b = right.post(path, content=content), wrong.post(path, content=content)
        assert (a.status_code, a.json()) == (b.status_code, b.json()), path


# ---------------------------------------------------------------- bodies

def _deep(n: int) -> bytes:
    return b'{"players": ' + b"[" * n + b"]" * n + b"}"


MALFORMED = [  # (path, body): a JSON value, or bytes sent as they are
    ("/api/games", _deep(30_000)), ("/api/games", _deep(100_000)), ("/api/games", {"players": 5}),
    ("/api/games", {"players": PLAYERS, "house": "x"}), ("/api/games", {"players": PLAYERS, "house": {"min_fan": "x"}}),
    ("/api/games", {"players": PLAYERS, "house": {"bribe": 1}}), ("/api/games", {"players": [1, 2, 3, 4]}),
    ("/api/games", {"players": ["A\nB", "C", "D", "E"]}), ("/api/games", {"players": PLAYERS, "preset": 5}),
    ("/api/games", {"players": PLAYERS, "round": "x"}), ("/api/games", {"players": PLAYERS, "flowers_in_play": "no"}),
    ("/api/games", [1, 2]), ("/api/games", "x"), ("/api/games", b""), ("/api/games", b"\xff\xfe{"),
    ("/api/games", b'{"players": NaN}'), ("/api/games", b'{"players": 1e999}'), ("/api/games", b'{"a": ' + b"9" * 5000 + b"}"),
    ("/api/games/1/preview", {"hand": ["1m"], "winner": 0}), ("/api/games/1/preview", {"hand": {"a": 1}, "winner": 0}),
    ("/api/games/1/preview", {"hand": WIN, "winner": True}), ("/api/games/1/preview", {"hand": WIN, "winner": 10 ** 23}),
    ("/api/games/1/preview", {"hand": WIN, "winner": 0, "flags": "x"}),
    ("/api/games/1/preview", {"hand": WIN, "winner": 0, "flags": {"x": True}}),
    ("/api/games/1/preview", {"hand": WIN, "winner": 0, "flags": {"last_tile": "yes"}}),
    ("/api/games/1/preview", {"hand": WIN, "winner": 0, "flags": {"responsible": 9}}),
    ("/api/games/1/preview", {"hand": "x" * 10_000, "winner": 0}),
    ("/api/games/1/hands", {"request_id": 10 ** 23, "kind": "win"}),
    ("/api/games/1/hands", {"request_id": "hand-0001", "kind": 5}),
    ("/api/games/1/hands", {"request_id": "hand-0001", "kind": "win", "hand": WIN, "winner": 1, "photo_id": 10 ** 23}),
    ("/api/games/1/hands", {"request_id": "hand-0001", "kind": "draw", "expected_hands": -1}),
    ("/api/games/100000000000000000000000/hands", {"request_id": "hand-0001", "kind": "draw"}),
    ("/api/games/1/undo", {"request_id": ["x" * 10]}),
]


@pytest.mark.parametrize("path, body", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_requests_get_a_short_4xx_never_a_500(app, path, body):
    c = _client(app)
    c.post("/api/games", json={"players": PLAYERS})
    r = c.post(path, content=body) if isinstance(body, bytes) else c.post(path, json=body)
    assert 400 <= r.status_code < 500, r.text
    message = r.json()["error"]
    assert 0 < len(message) <= MAX_MESSAGE and "\n" not in message


@pytest.mark.parametrize("path", ["/api/games/100000000000000000000000", "/api/photos/100000000000000000000000/thumb.jpg",
                                  "/api/games/100000000000000000000000/export.csv"])
def test_huge_ids_in_paths_are_not_found(app, path):
    assert _client(app).get(path).status_code == 404


@pytest.mark.parametrize("pin, status", [("１２３４５６", 201), (" 123456 ", 201), ("é", 401), ("12345６", 201),
                                         ("\u0661\u0662\u0663", 401)])
def test_pins_typed_on_any_keyboard_are_folded_or_refused_cleanly(pin_app, pin, status):
    c = _client(pin_app)
    r = c.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": pin.encode("utf-8")})
    assert r.status_code == status
    r = c.post("/api/games", json={"players": PLAYERS}, headers={"X-Mjcam-Pin": b"\xff\xfe"})  # not even UTF-8
    assert r.status_code == 401


def test_every_endpoint_refuses_a_body_declared_too_large(app):
    from mjcam.web.app import _body_limit

    guard = Guard(None, token="t", body_limit=_body_limit)  # as create_app sets it up
    assert _body_limit("/api/games/7/photos") == MAX_UPLOAD and _body_limit("/api/games/7/preview") == MAX_JSON
    paths = [r.path.replace("{game:int}", "7").replace("{photo:int}", "7") for r in app.routes]
    assert len(paths) >= 10
    for path in paths:
        for method in ("GET", "POST"):
            scope = {"type": "http", "method": method, "path": path,
                     "headers": [(b"host", b"127.0.0.1:8000"), (b"content-length", b"209715200"), (b"x-mjcam-token", b"t")]}
            refused = guard.refusal(scope)
            assert refused is not None and refused.status == 413 and "request is over" in str(refused), (method, path)


def test_a_huge_body_sent_in_chunks_is_cut_off_and_not_echoed(app):
    c = _client(app)
    gid = c.post("/api/games", json={"players": PLAYERS}).json()["id"]

    def chunks():  # 20 MB with no Content-Length (the in-process client sends it all; see the next test)
        yield b'{"hand": "'
        for _ in range(20 * 16):
            yield b"x" * 65536

    r = c.post(f"/api/games/{gid}/preview", content=chunks())
    assert r.status_code == 413 and len(r.content) < 300
    r = c.post(f"/api/games/{gid}/preview", json={"hand": "9" * 190, "winner": 0})  # a long bad hand
    assert r.status_code in (400, 422) and len(r.json()["error"]) <= MAX_MESSAGE


LONE = "\\ud800"  # JSON's escape of half a surrogate pair: no UTF-8 text holds it


@pytest.mark.parametrize("path, body", [
    ("/api/games", '{"players": ["A%s", "Bo", "Cy", "Di"]}' % LONE),
    ("/api/games", '{"players": ["Ann", "Bo", "Cy", "Di"], "preset": "hk%s"}' % LONE),
    ("/api/games", '{"players": ["Ann", "Bo", "Cy", "Di"], "%s": 1}' % LONE),
    ("/api/games/1/hands", '{"request_id": "hand-%s-0001", "kind": "draw"}' % LONE),
    ("/api/games/1/hands", '{"request_id": "hand-0001", "kind": "win", "hand": "%s 123m", "winner": 1}' % LONE),
    ("/api/games/1/preview", '{"hand": "123m\\udfff", "winner": 1}'),
    ("/api/games/1/undo", '{"request_id": "undo-%s-0001"}' % LONE),
], ids=range(7))
def test_lone_surrogates_are_refused_at_the_edge_and_never_stored(app, path, body):
    c = _client(app)
    gid = c.post("/api/games", json={"players": PLAYERS}).json()["id"]
    before = c.get(f"/api/games/{gid}").json()
    r = c.post(path, content=body.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid Unicode" in r.json()["error"], r.text
    assert _games(app) == 1 and c.get(f"/api/games/{gid}").json() == before
    assert all(c.get(p).status_code == 200 for p in ("/api/games", f"/api/games/{gid}", f"/api/games/{gid}/export.csv"))


def test_paths_and_queries_that_are_not_utf8_are_refused(app):
    c = _client(app)
    for url in ("/static/tiles/%ED%A0%80.svg", "/api/games?name=%ED%A0%80", "/api/games/1/export.csv?x=%FF",
                "/%C0%AF"):
        r = c.get(url)
        assert r.status_code == 400 and "UTF-8" in r.json()["error"], url
    assert c.get("/api/games?name=%E6%9D%B1").status_code == 200  # UTF-8 is fine


def test_a_ledger_already_holding_a_lone_surrogate_still_answers(tmp_path):
    import sqlite3

    db = str(tmp_path / "old.sqlite")
    app = create_app(db)
    c = _client(app)
    gid = c.post("/api/games", json={"players": PLAYERS}).json()["id"]
    raw = sqlite3.connect(db)  # as a version before this check stored it
    raw.execute("UPDATE games SET players = ?", ('["A\\ud800", "Bo", "Cy", "Di"]',))
    raw.commit()
    raw.close()
    for c in (c, _client(create_app(db))):  # and after a restart
        for path in ("/api/games", f"/api/games/{gid}", f"/api/games/{gid}/export.csv"):
            r = c.get(path)
            assert r.status_code == 200 and "A\ufffd" in r.text, path


def test_a_get_or_head_with_a_body_is_refused(app):
    c = _client(app)
    for method in ("GET", "HEAD"):
        r = c.request(method, "/api/games", content=b"x" * 10)
        assert r.status_code == 400
        if method == "GET":
            assert "carries no body" in r.json()["error"]
        r = c.request(method, "/api/games", content=iter([b"x"]))  # chunked, no length
        assert r.status_code == 400
    assert c.get("/api/games", headers={"content-length": "0"}).status_code == 200


# ---------------------------------------------------------------- on the wire

@pytest.fixture
def live(tmp_path):
    """A real server on loopback (in this process) with short time limits."""
    import uvicorn

    from mjcam.web.server import GuardedH11, listen

    class Quick(GuardedH11):
        header_timeout = 1.0
        body_timeout = 1.0
        body_grace = 0.5
        min_body_rate = 1000.0
        body_deadline = 3.0
        max_connections = 40

    app = create_app(str(tmp_path / "live.sqlite"), pin=PIN)
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, http=Quick, log_level="critical", proxy_headers=False))
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    deadline = time.time() + 10
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", sock.getsockname()[1], app
    server.should_exit = True
    t.join(10)


def _closed(s: socket.socket) -> bool:
    s.settimeout(0.2)
    try:
        return s.recv(64) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def _answer_then_closed(s: socket.socket, within: float = 5.0) -> bytes:
    """What the server sends on ``s`` until it closes it (an AssertionError if it has not within
    ``within`` seconds)."""
    s.settimeout(within)
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError(f"still open after {within} s: {got[:80]!r}") from None
    return got


def test_half_sent_requests_are_dropped_and_the_server_keeps_answering(live):
    base, port, app = live
    held = []
    for _ in range(100):  # more than the server keeps open: the longest waiting make room
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(s)
    trickle = socket.create_connection(("127.0.0.1", port))
    t0 = time.time()
    r = httpx.get(base + "/api/meta", timeout=5)
    assert r.status_code == 200 and time.time() - t0 < 2
    for ch in b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 8:  # a byte every 0.1 s
        try:
            trickle.sendall(bytes([ch]))
        except OSError:
            break
        time.sleep(0.1)
    time.sleep(1.2)
    assert all(_closed(s) for s in held) and _closed(trickle)
    stalled = socket.create_connection(("127.0.0.1", port))  # headers, then a body that never comes
    stalled.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
                    b"X-Mjcam-Token: " + app.state.token.encode() + b"\r\n\r\n{")
    time.sleep(2.5)
    assert _closed(stalled)
    for s in held + [trickle, stalled]:
        s.close()


def test_bodies_trickled_in_cannot_hold_the_connections(live):
    base, port, app = live
    head = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n"
            b"X-Mjcam-Token: " + app.state.token.encode() + b"\r\nX-Mjcam-Pin: " + PIN.encode() +
            b"\r\nContent-Type: application/json\r\n\r\n{")
    slow = []
    for _ in range(60):  # more than the server keeps open, each owing a body it sends a byte at a time
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(head)
        slow.append(s)
    t0 = time.time()
    r = httpx.get(base + "/api/meta", timeout=5)  # the slowest make room: a new client is answered at once
    assert r.status_code == 200 and time.time() - t0 < 2
    for _ in range(12):  # a byte from each every 0.25 s: far under the rate a body must keep
        for s in slow:
            try:
                s.sendall(b" ")
            except OSError:
                pass
        time.sleep(0.25)
    assert all(_closed(s) for s in slow)  # evicted, or cut off for keeping too slow a rate
    good = socket.create_connection(("127.0.0.1", port))  # a body sent at a fair rate is taken
    body = json.dumps({"players": PLAYERS}).encode()
    good.sendall(head.replace(b"60000", str(len(body)).encode())[:-1])
    for i in range(0, len(body), 8):
        good.sendall(body[i:i + 8])
        time.sleep(0.05)
    good.settimeout(5)
    assert good.recv(4096).startswith(b"HTTP/1.1 201")
    get = socket.create_connection(("127.0.0.1", port))  # a GET that says a body comes: refused, closed
    get.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nxx")
    assert _answer_then_closed(get).startswith(b"HTTP/1.1 400")
    for s in slow + [good, get]:
        s.close()


def test_over_the_wire_foreign_hosts_and_big_bodies_are_refused(live):
    base, port, app = live
    r = httpx.get(base + "/api/meta", headers={"Host": "attacker.example:%d" % port})
    assert r.status_code == 421
    token = httpx.get(base + "/api/meta").json()["token"]
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/games/1/preview HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 209715200\r\n"
              b"X-Mjcam-Token: " + token.encode() + b"\r\n\r\n")
    s.settimeout(5)
    head = _answer_then_closed(s)  # the body is not waited for
    assert head.startswith(b"HTTP/1.1 413") and len(head) < 2000
    s.close()
    s = socket.create_connection(("127.0.0.1", port))  # no length given: cut off once 64 KB have come
    s.sendall(b"POST /api/games/1/preview HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
              b"X-Mjcam-Token: " + token.encode() + b"\r\n\r\n")
    s.sendall(b"%x\r\n" % (100 * 1024) + b"x" * (100 * 1024) + b"\r\n")  # and no more
    head = s.recv(4096)
    assert head.startswith(b"HTTP/1.1 413") and len(head) < 2000
    s.close()


def test_serve_refuses_a_bad_port_or_a_taken_one_in_one_line(tmp_path):
    def serve_err(*args):
        r = subprocess.run([sys.executable, "-m", "mjcam", "serve", "--db", str(tmp_path / "s.sqlite"), *args],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        return r.returncode, r.stderr

    for args, words in ((["--port", "70000"], "1 to 65535"), (["--port", "x"], "whole number"),
                        (["--pin", "12"], "4 to 64"), (["--pin", "一二三四"], "4 to 64")):
        code, err = serve_err(*args)
        assert code == 2 and err.count("\n") == 1 and words in err, err
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        code, err = serve_err("--port", str(taken.getsockname()[1]))
    finally:
        taken.close()
    assert code == 2 and err.count("\n") == 1 and "cannot listen" in err, err


# ---------------------------------------------------------------- in a browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")
def test_the_page_works_under_its_csp_and_another_site_cannot_write(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    port = free_port()
    proc = serve(str(tmp_path / "b.sqlite"), port)
    base = f"http://127.0.0.1:{port}"
    attack = f"""<!doctype html><form id=f method=post enctype=text/plain action="{base}/api/games">
      <input name='{{"players": ["a","b","c","d"], "x": "' value='"}}'></form>
      <script>
        fetch("{base}/api/games", {{method: "POST", mode: "no-cors", body: JSON.stringify({{players: ["e","f","g","h"]}})}})
          .finally(() => document.getElementById("f").submit());
      </script>"""
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            violations = []
            page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
            page.on("dialog", lambda d: d.accept())
            page.goto(base + "/")
            page.wait_for_selector("#start:not([hidden])")
            for i, name in enumerate(PLAYERS):
                page.fill(f"input[name=p{i}]", name)
            page.click("#start-game")
            page.wait_for_selector("#game:not([hidden])")
            assert not violations, violations
            # another site's page: a no-cors fetch and a text/plain form post to the ledger
            page.route("http://attacker.test/", lambda route: route.fulfill(body=attack, content_type="text/html"))
            page.goto("http://attacker.test/")
            page.wait_for_url(f"{base}/api/games", timeout=10_000)
            browser.close()
        games = httpx.get(base + "/api/games").json()
        assert [g["players"] for g in games] == [PLAYERS]  # only the page's own game
    finally:
        proc.kill()
        proc.wait()


def test_four_large_uploads_at_once_take_the_memory_of_about_one(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from PIL import Image

    if not os.path.exists("/proc/self/status"):
        pytest.skip("peak memory is read from /proc")

    def hwm(pid):
        with open(f"/proc/{pid}/status") as fh:
            return next(int(x.split()[1]) * 1024 for x in fh if x.startswith("VmHWM"))

    big = tmp_path / "big.png"
    Image.new("RGB", (6000, 6000), (10, 200, 30)).save(big)  # 36 MP: 144 MB decoded
    data = big.read_bytes()
    port = free_port()
    proc = serve(str(tmp_path / "m.sqlite"), port)
    base = f"http://127.0.0.1:{port}"
    try:
        token = {"X-Mjcam-Token": httpx.get(base + "/api/meta").json()["token"]}
        gid = httpx.post(base + "/api/games", json={"players": PLAYERS}, headers=token).json()["id"]
        sample = open(os.path.join(ROOT, "samples", "hand-honours.jpg"), "rb").read()
        assert httpx.post(f"{base}/api/games/{gid}/photos", content=sample, headers=token, timeout=120).status_code == 201
        before = hwm(proc.pid)  # the models loaded

        def upload(_):
            with httpx.Client(base_url=base, headers=token, timeout=120) as c:
                return c.post(f"/api/games/{gid}/photos", content=data).status_code

        with ThreadPoolExecutor(4) as pool:
            codes = list(pool.map(upload, range(4)))
        rise = hwm(proc.pid) - before
    finally:
        proc.kill()
        proc.wait()
    assert codes == [201] * 4
    # one decode at a time, on one thread: about one decoded picture (144 MB) and two readings, not four
    # decodes and their copies (a rise of 508 MB with one decode at a time on any thread, 533 before that)
    assert rise < 2.5 * 6000 * 6000 * 4, f"{rise / 2 ** 20:.0f} MB"
