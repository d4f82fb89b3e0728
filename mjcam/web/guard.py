"""What stands between the network and the table app's handlers.

- :class:`Guard`, an ASGI middleware around the whole app: a request must name this server in its
  ``Host`` header (an IP address, ``localhost`` or a name it was told to answer to), which stops DNS
  rebinding; a request body may not be declared larger than its endpoint takes; a write (any
  method but GET and HEAD) must come from the page itself: no foreign ``Origin`` or
  ``Sec-Fetch-Site``, and the page's token (``X-Mjcam-Token``, given out by ``/api/meta``, which
  another site's page cannot read); every response carries the security headers.
- :func:`read_json` and :data:`SCHEMAS`: the one validation layer of request bodies. Whatever the
  body, the answer is a 4xx with a short message: too large, not JSON, nested too deep, a field of
  the wrong type or out of range.
- :class:`PinThrottle`: wrong PINs from one client are judged at most ``per_minute`` a minute,
  each logged; the table's other phones are not held up.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import math
import re
import threading
import time
import unicodedata
from collections import OrderedDict, deque

from starlette.responses import JSONResponse

log = logging.getLogger("mjcam.serve")

MAX_JSON = 64 * 1024  # a request body of JSON (the largest real one is under 2 KB)
MAX_ID = 2 ** 62  # ids in paths and bodies (SQLite's integers are 64-bit)
MAX_MESSAGE = 240  # an error message is cut to this many characters
TOKEN_HEADER = "x-mjcam-token"
SAFE_METHODS = ("GET", "HEAD")

SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
     b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


class HttpError(Exception):
    """A request refused: ``status`` and a short message for the person at the table."""

    def __init__(self, message: str, status: int = 400, headers: dict | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.headers, self.code = status, headers or {}, code


def short(message: str) -> str:
    """A message cut to :data:`MAX_MESSAGE` characters (an error never echoes a huge input back)."""
    message = " ".join(str(message).split())
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 1] + "…"


def error_response(message: str, status: int, headers: dict | None = None, code: str | None = None) -> JSONResponse:
    body = {"error": short(message)}
    if code:
        body["code"] = code
    return JSONResponse(body, status_code=status, headers=headers)


# ---------------------------------------------------------------- Host, Origin, token, body size

def host_name(host: str) -> str:
    """The name in a Host header or an Origin's authority, without port, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    name, sep, port = host.rpartition(":")
    return (name if sep and port.isdigit() else host).rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


class Guard:
    """ASGI middleware; see the module's docstring. ``hosts``: names besides IP addresses and
    ``localhost`` that this server answers to; ``token``: what a write's ``X-Mjcam-Token`` must
    be; ``body_limit(path)``: the most bytes a request to ``path`` may carry."""

    def __init__(self, app, hosts=(), token: str = "", body_limit=lambda path: MAX_JSON):
        self.app, self.token, self.body_limit = app, token.encode(), body_limit
        self.hosts = {"localhost"} | {host_name(h) for h in hosts if h}

    def refusal(self, scope) -> HttpError | None:
        headers = {}
        for k, v in scope.get("headers") or ():
            headers.setdefault(k.decode("latin-1"), v.decode("latin-1"))
        host = headers.get("host", "")
        name = host_name(host)
        if not name or not (name in self.hosts or _is_ip(name)):
            return HttpError("this server does not answer to that host name (use its address)", 421)
        size = headers.get("content-length")
        if size is not None:
            if not size.strip().isdigit():
                return HttpError("bad Content-Length", 400)
            limit = self.body_limit(scope.get("path", ""))
            if int(size) > limit:
                return HttpError(f"the request is over {_size(limit)}", 413)
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return HttpError("writes are taken only from this server's own page", 403)
        origin = headers.get("origin")
        if origin is not None:
            scheme, _, authority = origin.lower().partition("://")
            if scheme not in ("http", "https") or authority.rstrip("/") != host.strip().lower():
                return HttpError("writes are taken only from this server's own page", 403)
        given = headers.get(TOKEN_HEADER, "").encode("latin-1")
        if not hmac.compare_digest(given, self.token):
            return HttpError("this page is out of date or not from this server: reload it", 403, code="token")
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers") or ()}
                message = {**message, "headers": list(message.get("headers") or ()) +
                           [(k, v) for k, v in SECURITY_HEADERS if k not in have]}
            await send(message)

        refused = self.refusal(scope)
        if refused is not None:
            resp = error_response(str(refused), refused.status, refused.headers, refused.code)
            return await resp(scope, receive, send_with_headers)
        await self.app(scope, receive, send_with_headers)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{n // 1024} KB"


async def read_body(request, limit: int) -> bytes:
    """The request's body, refused (413) once it passes ``limit`` bytes, however it is sent."""
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise HttpError(f"the request is over {_size(limit)}", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request, schema: dict | None = None) -> dict:
    """The request's body: a JSON object of at most :data:`MAX_JSON` bytes, checked against
    ``schema`` (see :func:`validate`)."""
    raw = await read_body(request, MAX_JSON)
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
        raise HttpError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise HttpError("the request body must be a JSON object")
    return validate(body, schema) if schema is not None else body


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")


# ---------------------------------------------------------------- the validation layer

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class Field:
    """One field of a body: ``check(value)`` gives the clean value or raises ValueError with what
    was wrong; ``default`` when the field is missing or null (``required``: never missing)."""

    def __init__(self, check, default=None, required: bool = False, message: str | None = None):
        self.check, self.default, self.required, self.message = check, default, required, message


def validate(body: dict, schema: dict) -> dict:
    """``body`` checked field by field against ``schema`` ({name: Field}); fields not in the
    schema are ignored. A wrong field is a 400 naming it."""
    out = {}
    for name, field in schema.items():
        value = body.get(name)
        if value is None:
            if field.required:
                raise HttpError(field.message or f"{name} is missing")
            out[name] = field.default() if callable(field.default) else field.default
            continue
        try:
            out[name] = field.check(value)
        except (ValueError, TypeError) as e:
            raise HttpError(field.message or f"{name}: {e}") from None
    return out


def integer(lo: int, hi: int):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"expected a whole number from {lo} to {hi}")
        return v
    return check


def boolean(v):
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


def text(lo: int, hi: int, choices=None, control: bool = False):
    def check(v):
        if not isinstance(v, str):
            raise ValueError("expected text")
        if choices is not None and v not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        if not lo <= len(v) <= hi:
            raise ValueError(f"expected {lo} to {hi} characters")
        if not control and _CONTROL.search(v):
            raise ValueError("control characters are not allowed")
        return v
    return check


def players(v):
    if not isinstance(v, list) or len(v) != 4:
        raise ValueError("four names")
    return [text(1, 40)(p.strip() if isinstance(p, str) else p) for p in v]


def house(v):
    if not isinstance(v, dict):
        raise ValueError("expected an object of house rules")
    checks = {"min_fan": integer(0, 99), "cap": integer(0, 99), "table": text(1, 40), "payment": text(1, 40)}
    out = {}
    for k, x in v.items():
        if k not in checks:
            raise ValueError(f"unknown house rule {short(k)[:40]!r}")
        if x not in (None, ""):
            try:
                out[k] = checks[k](x)
            except ValueError as e:  # which rule is wrong, not only how
                raise ValueError(f"{k}: {e}") from None
    return out


def flags(known):
    def check(v):
        if not isinstance(v, dict):
            raise ValueError("expected an object of true/false flags")
        out = {}
        for k, x in v.items():
            if k == "responsible":
                out[k] = None if x is None else integer(0, 3)(x)
            elif k in known:
                out[k] = boolean(x)
            else:
                raise ValueError(f"unknown flag {short(k)[:40]!r}")
        return out
    return check


SEAT_WINDS = ("E", "S", "W", "N")
REQUEST_ID = Field(text(8, 80), required=True, message="every write needs a request_id (8 to 80 characters)")
HAND = Field(text(0, 200, control=True))  # the notation parser says what is wrong inside


def schemas(flag_names) -> dict[str, dict]:
    """The bodies of the app's JSON endpoints."""
    flag = Field(flags(flag_names), default=dict)
    place = integer(0, 3)
    return {
        "game": {"players": Field(players, required=True,
                                  message="a game needs four player names (1 to 40 characters each)"),
                 "preset": Field(text(1, 40), default="hk-old-style"), "house": Field(house, default=dict),
                 "round": Field(text(1, 1, SEAT_WINDS), default="E"),
                 "dealer_keeps_on_draw": Field(boolean, default=True), "flowers_in_play": Field(boolean, default=True)},
        "preview": {"hand": HAND, "winner": Field(place, required=True, message="winner must be a player place 0-3"),
                    "discarder": Field(place, message="discarder must be another player's place 0-3, or none"),
                    "flags": flag},
        "hand": {"request_id": REQUEST_ID, "kind": Field(text(3, 4, ("win", "draw")), default="win"), "hand": HAND,
                 "winner": Field(place, message="winner must be a player place 0-3"),
                 "discarder": Field(place, message="discarder must be another player's place 0-3, or none"),
                 "flags": flag, "photo_id": Field(integer(1, MAX_ID)),
                 "expected_hands": Field(integer(0, 1_000_000))},
        "undo": {"request_id": REQUEST_ID, "expected_hands": Field(integer(0, 1_000_000))},
    }


def path_ids(params: dict) -> None:
    """A number in a path beyond any id is a 404, not an overflow."""
    for v in params.values():
        if isinstance(v, int) and not 0 <= v <= MAX_ID:
            raise HttpError("not found", 404)


# ---------------------------------------------------------------- the PIN

def normal_pin(value: str) -> str:
    """A PIN as typed, made comparable: a header's bytes read as UTF-8 where they are (Starlette
    gives them as Latin-1), full-width and other compatibility characters folded (NFKC: the
    full-width digits of CJK keyboards are digits), spaces around it dropped."""
    try:
        value = value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return unicodedata.normalize("NFKC", value).strip()


class PinThrottle:
    """Judges the PIN of each write. A client (by address) is allowed ``per_minute`` wrong PINs in
    any minute; beyond that its writes are refused (429) without the PIN being looked at, until
    the oldest of them is a minute old. A right PIN from another phone is never held up."""

    def __init__(self, pin: str, per_minute: int = 10, window: float = 60.0, clock=time.monotonic):
        self.pin = normal_pin(pin).encode("utf-8")
        self.per_minute, self.window, self.clock = per_minute, window, clock
        self.failures: OrderedDict[str, deque] = OrderedDict()
        self.lock = threading.Lock()

    def check(self, client: str, given: str | None) -> None:
        with self.lock:
            now = self.clock()
            q = self.failures.get(client)
            if q is not None:
                while q and now - q[0] >= self.window:
                    q.popleft()
                if len(q) >= self.per_minute:
                    wait = max(1, math.ceil(self.window - (now - q[0])))
                    raise HttpError(f"too many wrong PINs from this device: try again in {wait} s", 429,
                                    {"Retry-After": str(wait)})
            if hmac.compare_digest(normal_pin(given or "").encode("utf-8"), self.pin):
                return
            if q is None:
                q = self.failures[client] = deque()
            q.append(now)
            self.failures.move_to_end(client)
            while len(self.failures) > 4096:  # clients long gone are forgotten first
                self.failures.popitem(last=False)
            log.warning("wrong PIN from %s (%d in the last minute%s)", client, len(q),
                        "; its writes now wait" if len(q) >= self.per_minute else "")
        raise HttpError("wrong or missing PIN: this game needs its PIN", 401)
