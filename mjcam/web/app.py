"""``mjcam serve``: the table web app — one page for the phone, a JSON API, the game ledger.

:func:`create_app` is the one app factory, used by the server and by the tests. The handlers are
the named functions below (the routes in :func:`routes`), each given what the app shares through
``request.app.state.table`` (:class:`Table`); the work that blocks runs in Starlette's thread pool; the ledger opens a connection per call and
each write is one transaction. Uploads are judged by their content, never by name, and are
never stored under a name the client chose (the ledger keeps the annotated picture and a
thumbnail as blobs).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mjcam.ledger import Ledger, LedgerError
from mjcam.service import CONDITIONS, read_photo
from mjcam.web.guard import (MAX_JSON, SESSION_COOKIE, Guard, HttpError, PinThrottle, error_response, path_ids,
                              read_json, schemas)
from mjcam.web.tiles import CropCache, crops, picture, tile_picture, verdict

MAX_UPLOAD = 25 * 1024 * 1024
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
ANNOTATED_SIDE = 1280
THUMB_SIDE = 240


# Photos are decoded one at a time, always on the same thread (a large picture may take up to
# vision.io.DECODE_BUDGET; on one thread the allocator reuses that memory for the next picture,
# where on many threads each would keep its own), and two are read at once at most: the server's
# memory does not grow with the number of uploads.
DECODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mjcam-decode")
READS = threading.Semaphore(2)
log = logging.getLogger("mjcam.serve")


def _error(message: str, status: int) -> JSONResponse:
    return error_response(message, status)


def _body_limit(path: str) -> int:
    """The most bytes a request to ``path`` may carry."""
    return MAX_UPLOAD if re.fullmatch(r"/api/games/[0-9]+/photos", path) else MAX_JSON


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    return error_response("internal error (the server's log has the details)", 500)


def _jpeg(image, side: int) -> bytes:
    import cv2

    h, w = image.shape[:2]
    s = min(1.0, side / max(h, w))
    if s < 1:
        image = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return buf.tobytes()


# ---------------------------------------------------------------- what the handlers share

@dataclass
class Table:
    """What every handler of one app shares: the ledger, the page's token (a new one after each
    start of the server), the PIN's throttle (None: no PIN), whether reading needs the PIN too
    (``read_pin``), the request bodies' schemas, the
    crops of the photos read last, and the recogniser (the shipped models unless given, loaded on
    first upload)."""

    ledger: Ledger
    token: str
    throttle: PinThrottle | None = None
    recognizer: object = None
    read_pin: bool = False
    bodies: dict = field(default_factory=lambda: schemas(CONDITIONS))
    crops: CropCache = field(default_factory=CropCache)

    def get_recognizer(self):
        if self.recognizer is None:
            from mjcam.vision.pipeline import default_recognizer

            self.recognizer = default_recognizer()
        return self.recognizer


def _table(request: Request) -> Table:
    return request.app.state.table


def guarded(handler, write: bool = False, body: str | None = None, public: bool = False):
    """``handler`` behind the checks every endpoint shares, in an order that tells nothing of
    the PIN: the ids in the path, the JSON body against its schema (``body``: its name in
    :func:`mjcam.web.guard.schemas`), then the PIN of a write (and, where the app asks it for
    reading too, of every request but a ``public`` one; a device's session cookie stands for the
    PIN it gave). Every refusal is a 4xx."""
    async def endpoint(request: Request):
        table = _table(request)
        try:
            path_ids(request.path_params)
            if body == "photo":  # its first bytes: an empty upload is refused before the PIN is judged
                request.state.upload = await _first_chunk(request)
            elif body is not None:
                request.state.body = await read_json(request, table.bodies[body])
            session = None
            if table.throttle is not None and (write or (table.read_pin and not public)):
                session = table.throttle.check(request.client.host if request.client else "?",
                                               request.headers.get("x-mjcam-pin"), request.cookies.get(SESSION_COOKIE))
            response = await handler(request)
            if session is not None:  # the PIN was right: this device need not be held up again
                response.set_cookie(SESSION_COOKIE, session, max_age=int(table.throttle.remember), path="/",
                                    httponly=True, samesite="strict")
            return response
        except LedgerError as e:
            return _error(str(e), e.status)
        except HttpError as e:
            return error_response(str(e), e.status, e.headers, e.code)
        except ClientDisconnect:
            return _error("the request was cut off", 400)
    return endpoint


def _json(request: Request) -> dict:
    return request.state.body


async def _first_chunk(request: Request):
    stream = request.stream().__aiter__()
    first = b""
    try:
        while not first:
            first = await stream.__anext__()
    except StopAsyncIteration:
        raise HttpError("the photo is empty: take it again, or choose another picture") from None
    return first, stream


async def _photo_chunks(request: Request):
    first, rest = request.state.upload
    yield first
    async for chunk in rest:
        yield chunk


def _game_id(request: Request) -> int:
    return int(request.path_params["game"])


# ---------------------------------------------------------------- the page and the tile pictures

async def index(request: Request):
    return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html; charset=utf-8")


#: the page's own files (nothing else under static/ is served by name), and their types
STATIC_FILES = {"app.js": "text/javascript; charset=utf-8", "editor.js": "text/javascript; charset=utf-8",
                "app.css": "text/css; charset=utf-8",
                "manifest.webmanifest": "application/manifest+json", "icon-192.png": "image/png",
                "icon-512.png": "image/png"}


async def static(request: Request):
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        return _error("not found", 404)
    return FileResponse(os.path.join(STATIC, name), media_type=STATIC_FILES[name])


async def favicon(request: Request):
    return FileResponse(picture("Rd"), media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


async def tile_crop(request: Request):
    data = _table(request).crops.get(int(request.path_params["photo"]), int(request.path_params["n"]))
    if data is None:
        return _error("no such tile (the crops of older photos are not kept)", 404)
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=86400"})


# ---------------------------------------------------------------- games

async def meta(request: Request):
    from mjcam.scoring import PRESET_IDS, load_preset
    from mjcam.scoring.payments import SCHEMES
    from mjcam.scoring.tables import TABLES
    from mjcam.scoring.tiles import CODES

    table = _table(request)
    return JSONResponse({"presets": [{"id": i, "name": load_preset(i).name} for i in PRESET_IDS],
                         "tiles": list(CODES), "flags": list(CONDITIONS), "tables": list(TABLES),
                         "payments": list(SCHEMES), "pin_required": table.throttle is not None,
                         "pin_for_reading": table.throttle is not None and table.read_pin,
                         "max_upload": MAX_UPLOAD, "token": table.token})


async def games(request: Request):
    ledger = _table(request).ledger
    if request.method == "GET":
        return JSONResponse(ledger.games())
    b = _json(request)
    g = ledger.create_game(b["players"], b["preset"], b["house"], b["round"], b["dealer_keeps_on_draw"],
                           b["flowers_in_play"])
    return JSONResponse(g, status_code=201)


async def game(request: Request):
    return JSONResponse(_table(request).ledger.game(_game_id(request)))


async def preview(request: Request):
    b = _json(request)
    return JSONResponse(_table(request).ledger.preview(_game_id(request), b["hand"] or "", b["winner"],
                                                       b["discarder"], b["flags"]))


async def hands(request: Request):
    b = _json(request)
    g, created = _table(request).ledger.record(_game_id(request), b["request_id"], b["kind"], b["hand"],
                                               b["winner"], b["discarder"], b["flags"], b["photo_id"],
                                               b["expected_hands"])
    return JSONResponse(g, status_code=201 if created else 200)


async def undo(request: Request):
    b = _json(request)
    return JSONResponse(_table(request).ledger.undo(_game_id(request), b["request_id"], b["expected_hands"]))


async def export(request: Request):
    gid = _game_id(request)
    return PlainTextResponse(_table(request).ledger.export_csv(gid), media_type="text/csv; charset=utf-8",
                             headers={"Content-Disposition": f'attachment; filename="mjcam-game-{gid}.csv"'})


# ---------------------------------------------------------------- photos

async def upload(request: Request):
    from starlette.concurrency import run_in_threadpool

    table = _table(request)
    gid = _game_id(request)
    table.ledger.check_game(gid)  # 404 before reading a large body for nothing
    too_large = f"the photo is over {MAX_UPLOAD // (1024 * 1024)} MB"
    fd, tmp = tempfile.mkstemp(prefix="mjcam-upload-")  # our name, never the client's
    try:  # written to disk as it comes: an upload holds no more than a chunk in memory
        digest, total = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as fh:
            async for chunk in _photo_chunks(request):
                total += len(chunk)
                if total > MAX_UPLOAD:
                    return _error(too_large, 413)
                digest.update(chunk)
                fh.write(chunk)
        return await run_in_threadpool(_read_upload, table, gid, tmp, digest.hexdigest())
    finally:
        os.unlink(tmp)


def _decode(path: str, side: int | None, reduce: int = 1):
    """The picture at ``path`` decoded on :data:`DECODER`'s thread (:func:`mjcam.vision.io.load_photo`)."""
    from mjcam.vision.io import load_photo

    return DECODER.submit(load_photo, path, side, reduce).result()


def _recognized(table: Table, path: str):
    """The photo at ``path`` read (:func:`mjcam.service.read_photo`); see DECODER and READS."""
    recognizer = table.get_recognizer()
    with READS:
        return read_photo(path, recognizer=recognizer, decode=_decode)


def _read_upload(table: Table, gid: int, tmp: str, sha256: str):
    from mjcam.vision.annotate import annotate
    from mjcam.vision.io import ImageError

    try:
        reading = _recognized(table, tmp)
    except ImageError as e:
        message = str(e).replace(tmp, "the photo")
        return _error(message, 413 if e.kind == "too-large" else 415 if e.kind == "not-an-image" else 400)
    image, rec = reading.image, reading.recognition
    d = rec.to_json()
    d["image"]["path"] = None
    pid = table.ledger.add_photo(gid, sha256, d, _jpeg(annotate(image, rec), ANNOTATED_SIDE), _jpeg(image, THUMB_SIDE))
    table.crops.put(pid, crops(image, rec))  # each read tile shown as the photo shows it
    g = table.ledger.game(gid)
    return JSONResponse({"photo_id": pid, "recognition": d, "annotated": f"/api/photos/{pid}/annotated.jpg",
                         "thumbnail": f"/api/photos/{pid}/thumb.jpg",
                         "crops": [f"/api/photos/{pid}/tiles/{n}.jpg" for n in range(len(rec.tiles))],
                         "trust": verdict(rec, g["preset"], g["house"], g["flowers_in_play"])}, status_code=201)


async def photo(request: Request):
    which = request.path_params["which"]
    if which not in ("annotated", "thumb"):
        return _error("not found", 404)
    data = _table(request).ledger.photo(int(request.path_params["photo"]), which)
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=86400"})


# ---------------------------------------------------------------- the app

def routes() -> list[Route]:
    return [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/static/tiles/{code}.svg", tile_picture),
        Route("/favicon.ico", favicon),
        Route("/api/meta", guarded(meta, public=True)),
        Route("/api/games", guarded(games), methods=["GET"]),
        Route("/api/games", guarded(games, write=True, body="game"), methods=["POST"]),
        Route("/api/games/{game:int}", guarded(game)),
        Route("/api/games/{game:int}/photos", guarded(upload, write=True, body="photo"), methods=["POST"]),
        Route("/api/games/{game:int}/preview", guarded(preview, body="preview"), methods=["POST"]),
        Route("/api/games/{game:int}/hands", guarded(hands, write=True, body="hand"), methods=["POST"]),
        Route("/api/games/{game:int}/undo", guarded(undo, write=True, body="undo"), methods=["POST"]),
        Route("/api/games/{game:int}/export.csv", guarded(export)),
        Route("/api/photos/{photo:int}/{which}.jpg", guarded(photo)),
        Route("/api/photos/{photo:int}/tiles/{n:int}.jpg", guarded(tile_crop)),
    ]


def create_app(db_path: str, pin: str | None = None, recognizer=None, hosts=(), read_pin: bool = False) -> Starlette:
    """The app over the ledger at ``db_path``. With ``pin``, every write needs it (header
    ``X-Mjcam-Pin``; wrong ones throttled, see :class:`mjcam.web.guard.PinThrottle`), and with
    ``read_pin`` every reading of a game or photo too (the page, its scripts, the tile pictures and
    ``/api/meta`` stay open).
    ``recognizer`` defaults to the shipped models, loaded on first upload. The app answers to IP
    addresses, ``localhost`` and the names in ``hosts``; every write needs the token that
    ``/api/meta`` gives the page (see :class:`mjcam.web.guard.Guard`)."""
    import secrets

    table = Table(Ledger(db_path), secrets.token_urlsafe(24), PinThrottle(pin) if pin is not None else None,
                  recognizer, read_pin=bool(read_pin and pin is not None))
    app = Starlette(routes=routes(), exception_handlers={Exception: _internal},
                    middleware=[Middleware(Guard, hosts=hosts, token=table.token, body_limit=_body_limit)])
    app.state.table = table
    app.state.ledger = table.ledger
    app.state.token = table.token
    return app
