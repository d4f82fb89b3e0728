"""Running the table app: uvicorn on a socket bound here, with time limits on what clients send.

uvicorn's own HTTP/1.1 protocol (h11) waits for ever for a request's headers and its body, so a
thousand half-sent requests, or bodies trickled a byte at a time, hold a thousand connections until
the server runs out of files and answers no one. :class:`GuardedH11` adds:

- a deadline for each request's headers (``header_timeout`` seconds from the connection, or from
  the end of the previous response), however slowly they trickle in;
- for a body, while the app is reading it: a limit on the wait between two pieces of it
  (``body_timeout``), an average rate it must keep after its first seconds (``min_body_rate``
  bytes a second after ``body_grace`` seconds) and a deadline for the whole of it
  (``body_deadline``); the time the app itself is slow to read is not counted;
- once a response is sent before its request's body has all come (a refusal), the connection is
  closed: the rest of the body is not waited for;
- a cap on open connections (``max_connections``): at the cap, the connection that has waited
  longest for its headers is closed to make room, else the one sending its body slowest; a new one
  is refused only when every connection is busy with a request the app is answering.
"""

from __future__ import annotations

import socket
import time

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class GuardedH11(H11Protocol):
    header_timeout = 10.0
    body_timeout = 30.0
    body_grace = 5.0
    min_body_rate = 2048.0
    body_deadline = 300.0
    max_connections = 500

    def connection_made(self, transport) -> None:  # type: ignore[override]
        self._timer = None
        self._waiting_since = None
        self._body = None  # while a body comes: [since, bytes, last piece, last check]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            victim = self._slowest()
            if victim is None:  # every connection is busy with a request: this one waits its turn elsewhere
                transport.close()
                return
            victim._expire()
        self._watch()

    def _registry(self, name: str) -> dict:
        state = self.server_state
        if not hasattr(state, name):
            setattr(state, name, {})
        return getattr(state, name)

    def _waiting(self) -> dict:
        """The connections of this server waiting for a request's headers, oldest first."""
        return self._registry("mjcam_waiting")

    def _sending(self) -> dict:
        """The connections of this server sending a request's body."""
        return self._registry("mjcam_sending")

    def _slowest(self):
        """The connection to close to make room: the one that has waited longest for its headers,
        else the one whose body comes slowest (bytes a second so far); None if none of either."""
        oldest = next((c for c in self._waiting() if c is not self), None)
        if oldest is not None:
            return oldest
        now = time.monotonic()
        rates = [(b[1] / max(now - b[0], 1e-3), b[0], id(c), c) for c, b in
                 ((c, c._body) for c in list(self._sending()) if c is not self) if b is not None]
        return min(rates)[3] if rates else None

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _watch(self) -> None:
        """Set the deadline for what the client owes now: headers, the rest of a body, or nothing."""
        if self.transport is None or self.transport.is_closing():
            self._forget()
            return
        state = self.conn.their_state
        waiting = self._waiting()
        if state is h11.IDLE:
            self._body = None
            self._sending().pop(self, None)
            if self._waiting_since is None:  # the deadline runs from the start, not from the last byte
                self._waiting_since = time.monotonic()
                waiting[self] = self._waiting_since
                self._disarm()
                self._timer = self.loop.call_later(self.header_timeout, self._expire)
            return
        waiting.pop(self, None)
        self._waiting_since = None
        if state is h11.SEND_BODY and self.cycle is not None and not self.cycle.response_complete:
            if self._body is None:
                now = time.monotonic()
                self._body = [now, 0, now, now]
                self._sending()[self] = None
                self._disarm()
                self._timer = self.loop.call_later(max(0.0, self._body_due() - now), self._body_check)
            return
        if state is h11.SEND_BODY and self.cycle is not None and self.cycle.response_complete:
            self._expire()  # answered (refused) before its body came: the rest is not waited for
            return
        self._body = None
        self._sending().pop(self, None)
        self._disarm()

    def _body_due(self) -> float:
        """When the body coming now falls behind: its deadline, the wait since its last piece, or
        the least it must have sent by then at the minimum rate, whichever comes first."""
        since, got, last, _ = self._body
        return min(since + self.body_deadline, last + self.body_timeout,
                   since + self.body_grace + (got + 1) / self.min_body_rate)

    def _body_check(self) -> None:
        self._timer = None
        if self._body is None:
            return
        now = time.monotonic()
        if self.flow is not None and self.flow.read_paused:  # the app is slow to read, not the client to send
            held = now - self._body[3]
            self._body[0] += held
            self._body[2] = now
        self._body[3] = now
        due = self._body_due()
        if now >= due - 1e-3 and not (self.flow is not None and self.flow.read_paused):
            self._expire()
            return
        self._timer = self.loop.call_later(max(due - now, 0.05), self._body_check)

    def _forget(self) -> None:
        self._disarm()
        self._waiting().pop(self, None)
        self._sending().pop(self, None)
        self._waiting_since = None
        self._body = None

    def _expire(self) -> None:
        self._forget()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._body is not None:
            self._body[1] += len(data)
            self._body[2] = time.monotonic()
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc) -> None:
        self._forget()
        super().connection_lost(exc)


def listen(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (OSError with the system's reason if not)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if not infos:
        raise OSError(f"no address for {host}")
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and host in ("::", ""):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def more_files() -> int:
    """Raise this process's limit of open files to its hard limit (at most 8192); the limit."""
    try:
        import resource
    except ImportError:  # Windows
        return 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(8192, hard if hard != resource.RLIM_INFINITY else 8192)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 8192


def run(app, sock: socket.socket, log_level: str = "warning") -> None:
    """Serve ``app`` on the listening ``sock`` until interrupted."""
    import uvicorn

    files = more_files()
    GuardedH11.max_connections = max(16, min(GuardedH11.max_connections, files // 2))
    config = uvicorn.Config(app, http=GuardedH11, log_level=log_level, proxy_headers=False, server_header=False,
                            timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024)
    uvicorn.Server(config).run(sockets=[sock])
