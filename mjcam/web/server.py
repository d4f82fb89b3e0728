"""Running the table app: uvicorn on a socket bound here, with time limits on what clients send.

uvicorn's own HTTP/1.1 protocol (h11) waits for ever for a request's headers, so a thousand
half-sent requests hold a thousand connections until the server runs out of files and answers
no one. :class:`GuardedH11` adds:

- a deadline for each request's headers (``header_timeout`` seconds from the connection, or from
  the end of the previous response), however slowly they trickle in;
- a limit on the wait between two pieces of a body (``body_timeout``), while the app is reading it;
- a cap on open connections (``max_connections``): at the cap, the connection that has waited
  longest for its headers is closed to make room, and a new one is refused only when none waits.
"""

from __future__ import annotations

import socket
import time

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class GuardedH11(H11Protocol):
    header_timeout = 10.0
    body_timeout = 30.0
    max_connections = 500

    def connection_made(self, transport) -> None:  # type: ignore[override]
        self._timer = None
        self._waiting_since = None
        super().connection_made(transport)
        waiting = self._waiting()
        if len(self.connections) > self.max_connections:
            oldest = next(iter(waiting), None)
            if oldest is None:  # every connection is busy with a request: this one waits its turn elsewhere
                transport.close()
                return
            oldest._expire()
        self._watch()

    def _waiting(self) -> dict:
        """The connections of this server waiting for a request's headers, oldest first."""
        state = self.server_state
        if not hasattr(state, "mjcam_waiting"):
            state.mjcam_waiting = {}
        return state.mjcam_waiting

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _watch(self) -> None:
        """Set the deadline for what the client owes now: headers, the next piece of a body, or nothing."""
        if self.transport is None or self.transport.is_closing():
            self._forget()
            return
        state = self.conn.their_state
        waiting = self._waiting()
        if state is h11.IDLE:
            if self._waiting_since is None:  # the deadline runs from the start, not from the last byte
                self._waiting_since = time.monotonic()
                waiting[self] = self._waiting_since
                self._disarm()
                self._timer = self.loop.call_later(self.header_timeout, self._expire)
            return
        waiting.pop(self, None)
        self._waiting_since = None
        self._disarm()
        if state is h11.SEND_BODY and self.cycle is not None and not self.cycle.response_complete:
            self._timer = self.loop.call_later(self.body_timeout, self._body_stalled)

    def _forget(self) -> None:
        self._disarm()
        self._waiting().pop(self, None)
        self._waiting_since = None

    def _expire(self) -> None:
        self._forget()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _body_stalled(self) -> None:
        self._timer = None
        if self.flow is not None and self.flow.read_paused:  # the app is slow to read, not the client to send
            self._timer = self.loop.call_later(self.body_timeout, self._body_stalled)
            return
        self._expire()

    def data_received(self, data: bytes) -> None:
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
