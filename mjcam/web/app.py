"""``mjcam serve``: the table web app — one page for the phone, a JSON API, the game ledger.

:func:`create_app` is the one app factory, used by the server and by the tests. Handlers are
plain functions run in Starlette's thread pool; the ledger opens a connection per call and
each write is one transaction. Uploads are judged by their content, never by name, and are
never stored under a name the client chose (the ledger keeps the annotated picture and a
thumbnail as blobs).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import tempfile

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mjcam.ledger import FLAGS, Ledger, LedgerError
from mjcam.web.tiles import CropCache, crops, picture, verdict

MAX_UPLOAD = 25 * 1024 * 1024
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
ANNOTATED_SIDE = 1280
THUMB_SIDE = 240


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _jpeg(image, side: int) -> bytes:
    import cv2

    h, w = image.shape[:2]
    s = min(1.0, side / max(h, w))
    if s < 1:
        image = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return buf.tobytes()


def create_app(db_path: str, pin: str | None = None, recognizer=None) -> Starlette:
    """The app over the ledger at ``db_path``. With ``pin``, every write needs it (header
    ``X-Mjcam-Pin``). ``recognizer`` defaults to the shipped models, loaded on first upload."""
    ledger = Ledger(db_path)
    state = {"recognizer": recognizer}
    tile_crops = CropCache()

    def get_recognizer():
        if state["recognizer"] is None:
            from mjcam.vision.pipeline import default_recognizer

            state["recognizer"] = default_recognizer()
        return state["recognizer"]

    def guarded(handler, write: bool = False):
        async def endpoint(request: Request):
            if write and pin is not None and not hmac.compare_digest(request.headers.get("x-mjcam-pin", ""), pin):
                return _error("this game needs its PIN", 401)
            try:
                return await handler(request)
            except LedgerError as e:
                return _error(str(e), e.status)
        return endpoint

    async def _json(request: Request) -> dict:
        try:
            body = await request.json()
        except ValueError:
            raise LedgerError("the request body is not JSON") from None
        if not isinstance(body, dict):
            raise LedgerError("the request body must be a JSON object")
        return body

    def _game_id(request: Request) -> int:
        return int(request.path_params["game"])

    async def index(request: Request):
        return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html; charset=utf-8")

    async def static(request: Request):
        name = request.path_params["name"]
        if name not in ("app.js", "app.css"):
            return _error("not found", 404)
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return FileResponse(os.path.join(STATIC, name), media_type=f"{kind}; charset=utf-8")

    async def tile_picture(request: Request):
        path = picture(request.path_params["code"])
        if path is None:
            return _error("not found", 404)
        return FileResponse(path, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    async def favicon(request: Request):
        return FileResponse(picture("Rd"), media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    async def tile_crop(request: Request):
        data = tile_crops.get(int(request.path_params["photo"]), int(request.path_params["n"]))
        if data is None:
            return _error("no such tile (the crops of older photos are not kept)", 404)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=86400"})

    async def meta(request: Request):
        from mjcam.scoring import PRESET_IDS, load_preset
        from mjcam.scoring.payments import SCHEMES
        from mjcam.scoring.tables import TABLES
        from mjcam.scoring.tiles import CODES

        return JSONResponse({"presets": [{"id": i, "name": load_preset(i).name} for i in PRESET_IDS],
                             "tiles": list(CODES), "flags": list(FLAGS), "tables": list(TABLES),
                             "payments": list(SCHEMES), "pin_required": pin is not None,
                             "max_upload": MAX_UPLOAD})

    async def games(request: Request):
        if request.method == "GET":
            return JSONResponse(ledger.games())
        b = await _json(request)
        g = ledger.create_game(b.get("players"), b.get("preset", "hk-old-style"), b.get("house") or {},
                               b.get("round", "E"), b.get("dealer_keeps_on_draw", True), b.get("flowers_in_play", True))
        return JSONResponse(g, status_code=201)

    async def game(request: Request):
        return JSONResponse(ledger.game(_game_id(request)))

    async def upload(request: Request):
        from starlette.concurrency import run_in_threadpool

        gid = _game_id(request)
        ledger.check_game(gid)  # 404 before reading a large body for nothing
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_UPLOAD:
            return _error(f"the photo is over {MAX_UPLOAD // (1024 * 1024)} MB", 413)
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > MAX_UPLOAD:
                return _error(f"the photo is over {MAX_UPLOAD // (1024 * 1024)} MB", 413)
            chunks.append(chunk)
        data = b"".join(chunks)
        if not data:
            return _error("no photo in the request (send the picture's bytes as the body)", 400)
        return await run_in_threadpool(_read_upload, gid, data)

    def _read_upload(gid: int, data: bytes):
        from mjcam.vision.annotate import annotate
        from mjcam.vision.io import ImageError

        fd, tmp = tempfile.mkstemp(prefix="mjcam-upload-")  # our name, never the client's
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            try:
                image, rec = get_recognizer().load_and_read(tmp)
            except ImageError as e:
                message = str(e).replace(tmp, "the photo")
                return _error(message, 413 if e.kind == "too-large" else 415 if e.kind == "not-an-image" else 400)
        finally:
            os.unlink(tmp)
        d = rec.to_json()
        d["image"]["path"] = None
        pid = ledger.add_photo(gid, hashlib.sha256(data).hexdigest(), d, _jpeg(annotate(image, rec), ANNOTATED_SIDE),
                               _jpeg(image, THUMB_SIDE))
        tile_crops.put(pid, crops(image, rec))  # each read tile shown as the photo shows it
        g = ledger.game(gid)
        return JSONResponse({"photo_id": pid, "recognition": d, "annotated": f"/api/photos/{pid}/annotated.jpg",
                             "thumbnail": f"/api/photos/{pid}/thumb.jpg",
                             "crops": [f"/api/photos/{pid}/tiles/{n}.jpg" for n in range(len(rec.tiles))],
                             "trust": verdict(rec, g["preset"], g["house"])}, status_code=201)

    async def photo(request: Request):
        which = request.path_params["which"]
        if which not in ("annotated", "thumb"):
            return _error("not found", 404)
        data = ledger.photo(int(request.path_params["photo"]), which)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=86400"})

    async def preview(request: Request):
        b = await _json(request)
        return JSONResponse(ledger.preview(_game_id(request), str(b.get("hand") or ""), b.get("winner"),
                                           b.get("discarder"), b.get("flags") or {}))

    async def hands(request: Request):
        b = await _json(request)
        g, created = ledger.record(_game_id(request), b.get("request_id"), b.get("kind", "win"), b.get("hand"),
                                   b.get("winner"), b.get("discarder"), b.get("flags") or {}, b.get("photo_id"),
                                   b.get("expected_hands"))
        return JSONResponse(g, status_code=201 if created else 200)

    async def undo(request: Request):
        b = await _json(request)
        return JSONResponse(ledger.undo(_game_id(request), b.get("request_id"), b.get("expected_hands")))

    async def export(request: Request):
        gid = _game_id(request)
        return PlainTextResponse(ledger.export_csv(gid), media_type="text/csv; charset=utf-8",
                                 headers={"Content-Disposition": f'attachment; filename="mjcam-game-{gid}.csv"'})

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/static/tiles/{code}.svg", tile_picture),
        Route("/favicon.ico", favicon),
        Route("/api/meta", guarded(meta)),
        Route("/api/games", guarded(games), methods=["GET"]),
        Route("/api/games", guarded(games, write=True), methods=["POST"]),
        Route("/api/games/{game:int}", guarded(game)),
        Route("/api/games/{game:int}/photos", guarded(upload, write=True), methods=["POST"]),
        Route("/api/games/{game:int}/preview", guarded(preview), methods=["POST"]),
        Route("/api/games/{game:int}/hands", guarded(hands, write=True), methods=["POST"]),
        Route("/api/games/{game:int}/undo", guarded(undo, write=True), methods=["POST"]),
        Route("/api/games/{game:int}/export.csv", guarded(export)),
        Route("/api/photos/{photo:int}/{which}.jpg", guarded(photo)),
        Route("/api/photos/{photo:int}/tiles/{n:int}.jpg", guarded(tile_crop)),
    ]
    app = Starlette(routes=routes)
    app.state.ledger = ledger
    return app
