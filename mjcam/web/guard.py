"""What stands between the network and the table app's handlers.

- :class:`Guard`, an ASGI middleware around the whole app: a request must name this server in its
  ``Host`` header (an IP address, ``localhost`` or a name it was told to answer to), which stops DNS
  rebinding; its path and query must be UTF-8 text; a GET or HEAD carries no body, and no request
  body may be declared larger than its endpoint takes; a write (any
  method but GET and HEAD) must come from the page itself: no foreign ``Origin`` or
  ``Sec-Fetch-Site``, and the page's token (``X-Mjcam-Token``, given out by ``/api/meta``, which
  another site's page cannot read); every response carries the security headers.
- :func:`read_json` and :data:`SCHEMAS`: the one validation layer of request bodies. Whatever the
  body, the answer is a 4xx with a short message: too large, not JSON, nested too deep, a field of
  the wrong type or out of range.
- :class:`PinThrottle`: wrong PINs are judged at most ``per_minute`` a minute from one address and
  a few a minute from all together, logged as a summary; a phone that gave the right PIN is never
  held up.
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
        if not _utf8(scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogatepass")) \
                or not _utf8(scope.get("query_string") or b""):
            return HttpError("the address holds bytes that are not UTF-8 text", 400)
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
            if (size is not None and size.strip() != "0") or "transfer-encoding" in headers:
                return HttpError(f"a {scope.get('method', 'GET')} request carries no body", 400)
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


def _utf8(raw: bytes) -> bool:
    """Whether the bytes of a path or query, %-escapes undone, are UTF-8 text."""
    from urllib.parse import unquote_to_bytes

    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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
    if not encodable(body):
        raise HttpError(UNENCODABLE)
    return validate(body, schema) if schema is not None else body


UNENCODABLE = "the request holds text that is not valid Unicode (a lone surrogate): retype it"


def encodable(value) -> bool:
    """Whether every text in ``value`` (a JSON value: its keys too) can be written as UTF-8: JSON's
    ``\\ud800`` escapes give lone surrogates that no file, database or page can hold."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError, ValueError):
        return False
    return True


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


SESSION_COOKIE = "mjcam_session"


def address_key(client: str) -> str:
    """The block of addresses one device controls, as the throttle counts them: an IPv4 address;
    an IPv6 address by its /64 (the block a network hands each machine, which it may use all of)."""
    try:
        ip = ipaddress.ip_address(client.split("%")[0])
    except ValueError:
        return client[:64]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address) and not ip.is_loopback:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class PinThrottle:
    """Judges the PIN of each request that needs it, so that guessing is slow from one address or
    from many, and never locks the table out:

    - per address (see :func:`address_key`): ``per_minute`` wrong PINs in any minute; beyond that
      its requests are refused (429) without the PIN being looked at, until the oldest of them is a
      minute old;
    - every address together: ``global_free`` wrong PINs in any minute; beyond that each further
      wrong PIN closes the door to unknown devices for a wait that doubles each time (1 s, 2 s, ...
      at most ``backoff_max`` s) and ends once a minute passes with no more than ``global_free``;
    - a device that gives the right PIN is handed a session (a cookie, see :data:`SESSION_COOKIE`)
      and its address is remembered for ``remember`` seconds. With the session it is let in at once
      (its PIN, if it sends one, judged without counting; a request with the session alone, as a
      picture or a download makes, needs no PIN); from that address its PIN is judged without
      waiting for the door, whatever guessing goes on elsewhere. A device new to the game is told
      to wait at most ``backoff_max`` seconds for its next try (while guessing goes on, a guess
      sent at the same moment may take that turn).

    Wrong PINs are logged as one line a quiet spell starts with and then a summary each
    ``report_every`` seconds, never a line per guess."""

    def __init__(self, pin: str, per_minute: int = 10, window: float = 60.0, clock=time.monotonic,
                 global_free: int = 10, backoff_max: float = 15.0, remember: float = 12 * 3600.0,
                 report_every: float | None = 60.0):
        self.pin = normal_pin(pin).encode("utf-8")
        self.per_minute, self.window, self.clock = per_minute, window, clock
        self.global_free, self.backoff_max, self.remember = global_free, backoff_max, remember
        self.failures: OrderedDict[str, deque] = OrderedDict()  # address -> times of its wrong PINs
        self.recent: deque = deque()  # times of every wrong PIN judged
        self.backoff, self.door_opens = 0.0, 0.0
        self.sessions: OrderedDict[str, float] = OrderedDict()  # session -> when it ends
        self.trusted: OrderedDict[str, float] = OrderedDict()  # address -> until when
        self.report_every = report_every
        self.counts = {"wrong": 0, "refused": 0}
        self.guessers: set[str] = set()
        self._timer = None
        self.lock = threading.Lock()

    # ------------------------------------------------------------ sessions and trusted addresses

    def _valid(self, session: str | None, now: float) -> bool:
        if not session:
            return False
        until = self.sessions.get(session)
        if until is None or until <= now:
            self.sessions.pop(session, None)
            return False
        return True

    def _admit(self, key: str, now: float) -> str:
        import secrets

        session = secrets.token_urlsafe(24)
        self.sessions[session] = now + self.remember
        while len(self.sessions) > 4096:
            self.sessions.popitem(last=False)
        self.trusted[key] = now + self.remember
        self.trusted.move_to_end(key)
        while len(self.trusted) > 1024:
            self.trusted.popitem(last=False)
        return session

    def session_valid(self, session: str | None) -> bool:
        """Whether ``session`` is one this throttle handed out and still holds."""
        with self.lock:
            return self._valid(session, self.clock())

    # ------------------------------------------------------------ judging

    def check(self, client: str, given: str | None, session: str | None = None) -> str | None:
        """Let the request in, or raise :class:`HttpError` (401 wrong or missing PIN, 429 wait).
        Returns a new session to hand the device when its PIN was judged right, else None."""
        with self.lock:
            now = self.clock()
            if self._valid(session, now):  # a device that gave the right PIN: never held up
                if not given or hmac.compare_digest(normal_pin(given).encode("utf-8"), self.pin):
                    return None  # (a picture or a download carries the session alone)
                raise HttpError("wrong PIN: this game needs its PIN", 401)
            key = address_key(client)
            q = self.failures.get(key)
            if q is not None:
                while q and now - q[0] >= self.window:
                    q.popleft()
                if len(q) >= self.per_minute:
                    self._count("refused", key)
                    wait = max(1, math.ceil(self.window - (now - q[0])))
                    raise HttpError(f"too many wrong PINs from this device: try again in {wait} s", 429,
                                    {"Retry-After": str(wait)})
            while self.recent and now - self.recent[0] >= self.window:
                self.recent.popleft()
            if len(self.recent) <= self.global_free:
                self.backoff = 0.0
            trusted = self.trusted.get(key, 0.0) > now
            if not trusted and now < self.door_opens:
                self._count("refused", key)
                wait = max(1, math.ceil(self.door_opens - now))
                raise HttpError(f"too many wrong PINs on this server just now: try again in {wait} s", 429,
                                {"Retry-After": str(wait)})
            if not given or not given.strip():  # nothing guessed: asked for, not counted
                raise HttpError("this game needs its PIN", 401)
            if hmac.compare_digest(normal_pin(given).encode("utf-8"), self.pin):
                return self._admit(key, now)
            if q is None:
                q = self.failures[key] = deque()
            q.append(now)
            self.failures.move_to_end(key)
            while len(self.failures) > 4096:  # addresses long gone are forgotten first
                self.failures.popitem(last=False)
            self.recent.append(now)
            if len(self.recent) > self.global_free:
                self.backoff = min(self.backoff_max, self.backoff * 2 or 1.0)
                self.door_opens = now + self.backoff
            self._count("wrong", key)
        raise HttpError("wrong or missing PIN: this game needs its PIN", 401)

    # ------------------------------------------------------------ the log

    def _count(self, what: str, key: str) -> None:
        quiet = not any(self.counts.values())
        self.counts[what] += 1
        if len(self.guessers) < 10_000:
            self.guessers.add(key)
        if quiet and what == "wrong":
            log.warning("wrong PIN from %s (further ones are summed up every %d s)", key,
                        self.report_every or self.window)
        if quiet and self.report_every and self._timer is None:
            self._timer = threading.Timer(self.report_every, self.report)
            self._timer.daemon = True
            self._timer.start()

    def report(self) -> str | None:
        """Log (and return) the summary of the wrong PINs since the last one, if there were any."""
        with self.lock:
            self._timer = None
            wrong, refused, n = self.counts["wrong"], self.counts["refused"], len(self.guessers)
            self.counts = {"wrong": 0, "refused": 0}
            self.guessers = set()
            waiting = self.clock() < self.door_opens
        if not (wrong or refused):
            return None
        line = (f"{wrong} wrong PIN{'' if wrong == 1 else 's'} and {refused} request{'' if refused == 1 else 's'} "
                f"refused unjudged, from {n} address{'' if n == 1 else 'es'}, since the last report")
        if waiting:
            line += f"; new devices wait up to {self.backoff:.0f} s for a try (phones that gave the PIN do not)"
        log.warning("%s", line)
        return line
