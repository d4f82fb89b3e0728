"""The table app draws tiles from bundled pictures: the pictures, each read tile's crop of the
photo, the verdict on a reading, the favicon; and no page file relies on a mahjong character."""

import os
import re
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from mjcam.scoring.tiles import CODES  # noqa: E402
from mjcam.web.app import create_app  # noqa: E402
from mjcam.web.tiles import TILE_DIR, CropCache  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATIC = os.path.join(ROOT, "mjcam", "web", "static")
MAHJONG = re.compile("[\U0001F000-\U0001F02B]")


def page_client(app) -> TestClient:
    """A client as the app's own page is: at the server's address, with the page's token if it has one."""
    c = TestClient(app, base_url="http://127.0.0.1:8000")
    token = c.get("/api/meta").json().get("token")
    if token:
        c.headers["X-Mjcam-Token"] = token
    return c


@pytest.fixture
def client(tmp_path):
    return page_client(create_app(str(tmp_path / "games.sqlite")))


def test_every_tile_has_a_bundled_picture_drawn_without_fonts():
    for code in list(CODES) + ["back"]:
        path = os.path.join(TILE_DIR, f"{code}.svg")
        root = ET.parse(path).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", code
        assert not list(root.iter("{http://www.w3.org/2000/svg}text")), f"{code}: drawn with a font"
        assert os.path.getsize(path) < 12_000


def test_no_page_file_relies_on_a_mahjong_character():
    for name in ("index.html", "app.js", "app.css"):
        with open(os.path.join(STATIC, name), encoding="utf-8") as fh:
            assert not MAHJONG.search(fh.read()), name


def test_tile_pictures_and_favicon_are_served(client):
    r = client.get("/static/tiles/Rd.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert client.get("/static/tiles/Zz.svg").status_code == 404
    assert client.get("/favicon.ico").status_code == 200


def test_an_upload_gives_each_tiles_crop_and_the_verdict(client):
    g = client.post("/api/games", json={"players": ["Ann", "Bo", "Cy", "Di"]}).json()
    with open(os.path.join(ROOT, "samples", "hand-pungs.jpg"), "rb") as fh:
        r = client.post(f"/api/games/{g['id']}/photos", content=fh.read(), headers={"content-type": "image/jpeg"})
    assert r.status_code == 201, r.text
    d = r.json()
    assert len(d["crops"]) == len(d["recognition"]["tiles"]) == 14
    crop = client.get(d["crops"][0])
    assert crop.status_code == 200 and crop.content[:2] == b"\xff\xd8"  # a JPEG
    assert client.get(f"/api/photos/{d['photo_id']}/tiles/99.jpg").status_code == 404
    assert isinstance(d["trust"]["auto"], bool) and isinstance(d["trust"]["doubts"], list)
    assert d["recognition"]["tops"] in ("up", "down", "left", "right", None)


def test_the_crops_of_old_photos_are_let_go():
    cache = CropCache(keep=2)
    for pid in (1, 2, 3):
        cache.put(pid, [b"x"])
    assert cache.get(1, 0) is None and cache.get(3, 0) == b"x" and cache.get(3, 1) is None
