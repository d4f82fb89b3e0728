"""``mjcam review RESULTS``: a page on this computer that walks a person through the photos of a
batch output that need one.

For each photo: the photo with the tiles drawn on it, each tile's crop beside its picture (tap
to correct it, with the table app's tile pictures), the proposed hand and why it needs a person;
the winner, the discarder and the winning conditions are set, the hand scored, then confirmed.
A confirmed hand is written to the results as the photo's new record (``"confirmed": true``),
to the corrections file (so a later ``mjcam batch --corrections`` keeps it) and, where the
photos are a game (``--game``, ``--ledger``), into that game in its place (:mod:`mjcam.night`).

The page is served on 127.0.0.1 only, behind the table app's guard (:class:`mjcam.web.guard.Guard`:
the host name checked, writes only from the page itself, with its token).
"""

from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from mjcam.batch import BatchError, current, open_output, rescore, situated
from mjcam.night import GameError, arrange, build, game_of, options_of, parse_players
from mjcam.scoring.tiles import SEATS
from mjcam.service import CONDITIONS
from mjcam.sheets import SheetError, Situation, _who, flag_names, photo_name, save_correction
from mjcam.web.guard import Field, Guard, HttpError, error_response, read_json, text
from mjcam.web.tiles import crops, picture, tile_picture

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PHOTO_SIDE = 1280
KEEP = 8  # photos whose pictures are kept in memory


class ReviewError(Exception):
    """A review that cannot start: exit 2 with one line."""


def _flag_list(v):
    if not isinstance(v, list) or len(v) > len(CONDITIONS) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a list of winning conditions")
    return list(flag_names(" ".join(v)))


BODY = {"hand": Field(text(0, 200, control=True), default=""),
        "winner": Field(text(1, 40), required=True, message="choose who won"),
        "discarder": Field(text(0, 40)), "flags": Field(_flag_list, default=list)}


class Review:
    """The results being reviewed: their current records, the photos that need a person (in
    the order they were taken), and where confirmed hands go."""

    def __init__(self, results: str, corrections: str, players: tuple[str, ...] = (), ledger: str | None = None):
        self.results, self.corrections, self.players, self.ledger = results, corrections, players, ledger
        self.lock = threading.Lock()
        self.token = secrets.token_urlsafe(24)
        self.pictures: OrderedDict[str, tuple[bytes, list[bytes]]] = OrderedDict()
        self.records = self._load()
        from mjcam.night import taken_order

        self.items = [r["path"] for r in taken_order(self.records.values())
                      if r["status"] != "duplicate" and (r.get("needs_person") or r["status"] == "error")]
        self.game_lines: list[str] = []

    def _load(self) -> dict[str, dict]:
        output = open_output(self.results)
        try:
            return {r["path"]: r for r in current(output.records())}
        finally:
            output.close()

    def record(self, n: int) -> dict:
        if not 0 <= n < len(self.items):
            raise HttpError("no such photo", 404)
        return self.records[self.items[n]]

    # ------------------------------------------------------------ what the page shows

    def item(self, n: int) -> dict:
        from mjcam.vision.pipeline import Recognition

        r = self.record(n)
        why = list(r.get("check") or []) if r["status"] == "scored" else []
        if r["status"] == "error":
            why.append("the photo could not be read: " + (r.get("error") or {}).get("message", ""))
        elif not r.get("confirmed"):
            rec = Recognition.from_json({**r, "hand": r.get("proposed", r.get("hand"))})
            why = why or [f"check {d}" for d in rec.doubts()]
            if r["status"] == "no-hand":
                why.append("the tiles read make no complete hand")
            elif r["status"] == "not-a-win":
                reason = (r.get("score") or {}).get("reason") or (r.get("error") or {}).get("message")
                why.append("the proposed hand is not a legal win" + (f": {reason}" if reason else ""))
            why += rec.notes
        given = Situation.from_json(r.get("given"))
        sit = r.get("situation") or (r.get("options") or {}).get("situation") or {}
        situation = given.to_json() if given else {
            "winner": sit.get("seat", "E"), "discarder": sit.get("discarder"),
            "flags": [c for c in CONDITIONS if sit.get(c)]}
        score = r.get("score") or {}
        return {"id": n, "name": os.path.basename(r["path"]), "path": r["path"], "status": r["status"],
                "names": self.names(r),
                "confirmed": bool(r.get("confirmed")), "hand": r.get("hand") or "",
                "proposed": r.get("proposed", r.get("hand")) or "", "why": why,
                "tiles": r.get("tiles") or [], "groups": r.get("groups") or [], "winning": r.get("winning"),
                "needs_confirmation": r.get("needs_confirmation") or [], "situation": situation,
                "score": {k: score.get(k) for k in ("legal", "reason", "fan", "points", "payments", "patterns")}
                if score else None}

    def picture(self, n: int) -> tuple[bytes, list[bytes]] | None:
        """The photo with its reading drawn on it and each tile's crop, as JPEG bytes."""
        import cv2

        from mjcam.vision.annotate import annotate
        from mjcam.vision.io import ImageError, load_photo
        from mjcam.vision.pipeline import Recognition

        r = self.record(n)
        with self.lock:
            if r["path"] in self.pictures:
                self.pictures.move_to_end(r["path"])
                return self.pictures[r["path"]]
        if r["status"] == "error":
            return None
        try:
            image, _ = load_photo(r["path"], PHOTO_SIDE)
        except ImageError:
            return None
        rec = Recognition.from_json({**r, "hand": r.get("proposed", r.get("hand"))})
        drawn = annotate(image, rec)
        ok, buf = cv2.imencode(".jpg", cv2.cvtColor(drawn, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
        made = (buf.tobytes(), crops(image, rec))
        with self.lock:
            self.pictures[r["path"]] = made
            while len(self.pictures) > KEEP:
                self.pictures.popitem(last=False)
        return made

    def names(self, record: dict, winner: int | None = None) -> dict[str, str] | None:
        """``{seat: player}`` at the record's hand, where the photos are a game: from the winner's
        place (``winner``; else the winner the person named) and the seat the hand was scored
        with. None where the game has no names, or the winner was given as a seat."""
        seat = (record.get("situation") or {}).get("seat")
        if not self.players or seat not in SEATS:
            return None
        if winner is None:
            given = Situation.from_json(record.get("given"))
            if given is None or given.winner not in self.players:
                return None
            winner = self.players.index(given.winner)
        dealer = (winner - SEATS.index(seat)) % 4
        return {s: self.players[(dealer + i) % 4] for i, s in enumerate(SEATS)}

    # ------------------------------------------------------------ scoring and confirming

    def _given(self, body: dict) -> Situation:
        try:
            winner = _who(body["winner"], self.players)
            d = (body.get("discarder") or "").strip()
            discarder = _who(d, self.players) if d else None
        except ValueError as e:
            raise HttpError(str(e)) from None
        if discarder == winner:
            raise HttpError("the discarder is the winner: choose self-drawn, or another player")
        return Situation(winner, discarder, tuple(body["flags"]))

    def candidate(self, n: int, body: dict) -> dict:
        """The photo's record as the person has it: their hand scored under their situation (in a
        game, as the game has it at that hand)."""
        return self.weighed(n, body)[0]

    def weighed(self, n: int, body: dict) -> tuple[dict, dict[str, str] | None]:
        """:meth:`candidate`, and who sits in each seat at that hand (:meth:`names`)."""
        from mjcam.batch import Plan
        from mjcam.scoring import ContextError, NotationError, WinContext

        r = self.record(n)
        given, hand = self._given(body), body["hand"].strip()
        if hand:
            from mjcam.scoring import parse_hand

            try:
                parse_hand(hand)
            except NotationError as e:
                raise HttpError(str(e), 422) from None
        options = options_of(r)
        try:
            if self.players and self.ledger:
                from mjcam.ledger import Ledger

                records = [x for x in self.records.values() if x["status"] != "duplicate"]
                _, g = game_of(Ledger(self.ledger), records, options, self.players)
                wanted, _, _, rescored = arrange(records, options, self.players, g, (r["path"], given, hand))
                if r["path"] not in rescored:  # (after the North round's last deal: scored as it stands)
                    raise HttpError("this hand comes after the game's last deal", 409)
                new = rescored[r["path"]]
                place = next((w["winner"] for w in wanted if w["record"]["path"] == r["path"]), None)
                return new, self.names(new, place)
            seat_of = (lambda who: "ESWN"[self.players.index(who)] if who in self.players else who)
            flags = situated(options.flags, given, seat_of)
            WinContext(**flags.situation())
        except (ContextError, GameError) as e:
            raise HttpError(str(e), 422) from None
        new = rescore(r, options, Plan(flags, given, hand))
        return new, self.names(new)

    def confirm(self, n: int, body: dict) -> dict:
        new = self.candidate(n, body)
        if new["hand"] and not new.get("legal"):
            reason = (new.get("score") or {}).get("reason") or (new.get("error") or {}).get("message", "")
            raise HttpError(f"not a legal win ({reason}): correct the hand, or say the photo shows no winning hand", 422)
        with self.lock:
            try:
                output = open_output(self.results)
                try:
                    output.write(new)
                finally:
                    output.close()
                save_correction(self.corrections, photo_name(new["path"], list(self.records)), new["hand"] or "",
                                Situation.from_json(new.get("given")))
                if self.players and self.ledger:
                    self.game_lines = build(self.results, self.players, self.ledger).lines(self.ledger)
                self.records = self._load()
            except (BatchError, SheetError, GameError) as e:
                raise HttpError(str(e), 409) from None
        return {"photo": self.item(n), "game": self.game_lines}


# ---------------------------------------------------------------- the app

def _review(request: Request) -> Review:
    return request.app.state.review


def _handled(handler):
    async def endpoint(request: Request):
        try:
            return await handler(request)
        except HttpError as e:
            return error_response(str(e), e.status, e.headers, e.code)
    return endpoint


async def page(request: Request):
    return FileResponse(os.path.join(STATIC, "review.html"), media_type="text/html; charset=utf-8")


async def static(request: Request):
    name = request.path_params["name"]
    kinds = {"review.js": "text/javascript", "editor.js": "text/javascript", "review.css": "text/css",
             "app.css": "text/css"}
    if name not in kinds:
        return error_response("not found", 404)
    return FileResponse(os.path.join(STATIC, name), media_type=f"{kinds[name]}; charset=utf-8")


async def listing(request: Request):
    from mjcam.scoring.tiles import CODES

    rv = _review(request)
    return JSONResponse({"token": rv.token, "flags": list(CONDITIONS), "tiles": list(CODES),
                         "players": list(rv.players) or None, "results": rv.results, "corrections": rv.corrections,
                         "photos": [rv.item(n) for n in range(len(rv.items))], "game": rv.game_lines})


async def photo(request: Request):
    from starlette.concurrency import run_in_threadpool

    made = await run_in_threadpool(_review(request).picture, int(request.path_params["n"]))
    if made is None:
        return error_response("the photo can no longer be read", 404)
    return Response(made[0], media_type="image/jpeg")


async def tile_crop(request: Request):
    from starlette.concurrency import run_in_threadpool

    made = await run_in_threadpool(_review(request).picture, int(request.path_params["n"]))
    k = int(request.path_params["k"])
    if made is None or not 0 <= k < len(made[1]):
        return error_response("no such tile", 404)
    return Response(made[1][k], media_type="image/jpeg")


async def preview(request: Request):
    from starlette.concurrency import run_in_threadpool

    body = await read_json(request, BODY)
    r, names = await run_in_threadpool(_review(request).weighed, int(request.path_params["n"]), body)
    score = r.get("score") or {}
    return JSONResponse({"status": r["status"], "hand": r.get("hand"), "legal": bool(r.get("legal")),
                         "error": (r.get("error") or {}).get("message"),
                         "score": {k: score.get(k) for k in ("legal", "reason", "fan", "points", "payments", "patterns")}
                         if score else None, "situation": r.get("situation"), "names": names})


async def confirm(request: Request):
    from starlette.concurrency import run_in_threadpool

    body = await read_json(request, BODY)
    return JSONResponse(await run_in_threadpool(_review(request).confirm, int(request.path_params["n"]), body))


def create_review_app(review: Review) -> Starlette:
    app = Starlette(routes=[
        Route("/", page),
        Route("/static/{name}", static),
        Route("/static/tiles/{code}.svg", tile_picture),
        Route("/favicon.ico", lambda request: FileResponse(picture("Rd"), media_type="image/svg+xml")),
        Route("/api/review", _handled(listing)),
        Route("/api/review/{n:int}/photo.jpg", _handled(photo)),
        Route("/api/review/{n:int}/tiles/{k:int}.jpg", _handled(tile_crop)),
        Route("/api/review/{n:int}/preview", _handled(preview), methods=["POST"]),
        Route("/api/review/{n:int}/confirm", _handled(confirm), methods=["POST"]),
    ], middleware=[Middleware(Guard, token=review.token)])
    app.state.review = review
    return app


def default_corrections(results: str) -> str:
    """``night.jsonl`` -> ``night-corrections.csv``, beside it."""
    return os.path.splitext(results)[0] + "-corrections.csv"


def serve_review(a) -> int:
    """``mjcam review``: serve the page on 127.0.0.1 until interrupted."""
    import sys

    results = a.results
    if not os.path.isfile(results):
        raise ReviewError(f"{results}: no such file" if not os.path.exists(results) else f"{results}: not a file")
    players = ()
    if a.game or a.ledger:
        if not (a.game and a.ledger):
            raise ReviewError("--game and --ledger go together: the four players and the ledger of their game")
        try:
            players = parse_players(a.game)
        except GameError as e:
            raise ReviewError(str(e)) from None
    corrections = a.corrections or default_corrections(results)
    try:
        review = Review(results, corrections, players, a.ledger)
    except BatchError as e:
        raise ReviewError(str(e)) from None
    if not review.items:
        print(f"no photo in {results} needs a person", file=sys.stderr)
        return 0
    from mjcam.web.server import listen, run

    try:
        sock = listen("127.0.0.1", a.port)
    except OSError as e:
        raise ReviewError(f"cannot listen on 127.0.0.1 port {a.port}: {e.strerror or e} (give another --port)") from None
    url = f"http://127.0.0.1:{a.port}/"
    n = len(review.items)
    print(f"{n} photo{'' if n == 1 else 's'} to check: open {url} (Ctrl-C ends)", file=sys.stderr)
    print(f"confirmed hands go to {results} and {corrections}" + (f" and the game in {a.ledger}" if a.ledger else ""),
          file=sys.stderr, flush=True)
    if not a.no_open:
        import webbrowser

        threading.Timer(0.5, lambda: webbrowser.open(url)).start()
    run(create_review_app(review), sock)
    return 0
