"""What ``mjcam serve`` prints when it starts: where a phone can open the table app, the game PIN,
and the address as a QR code a phone can scan from the terminal.

>>> print("\\n".join(banner("127.0.0.1", 8000, None, "/tmp/g.sqlite", qr=False)))
mjcam: the table app is at http://127.0.0.1:8000/ on this computer only
mjcam: for the phones at the table, start it with --host 0.0.0.0 (a game PIN is then asked before any change)
mjcam: ledger /tmp/g.sqlite
>>> print("\\n".join(banner("192.168.1.20", 8000, "123456", "/tmp/g.sqlite", qr=False)))
mjcam: open http://192.168.1.20:8000/ on a phone on the same network
mjcam: game PIN 123456 (asked before any change to the ledger)
mjcam: anyone on the network can read the games, their CSV and photos without it (--read-pin asks it for reading too)
mjcam: ledger /tmp/g.sqlite
>>> print("\\n".join(banner("192.168.1.20", 8000, "123456", "/tmp/g.sqlite", qr=False, read_pin=True)))
mjcam: open http://192.168.1.20:8000/ on a phone on the same network
mjcam: game PIN 123456 (asked before reading or changing the ledger)
mjcam: ledger /tmp/g.sqlite
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import quote

LOCAL = ("127.0.0.1", "localhost", "::1")
ANY = ("0.0.0.0", "::", "")


def _usable(addr: str) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that another device on the network can reach, the one of the
    default route first (found without sending a packet)."""
    found: list[str] = []
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.254.254.254", 1))
        found.append(s.getsockname()[0])
    except OSError:
        pass
    finally:
        s.close()
    try:  # each network interface's address (Linux)
        import fcntl
        import struct

        for _, name in socket.if_nameindex():
            t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                packed = fcntl.ioctl(t.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
                found.append(socket.inet_ntoa(packed[20:24]))
            except OSError:
                pass
            finally:
                t.close()
    except (ImportError, OSError, AttributeError):
        pass
    try:
        found += [i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    return [a for a in dict.fromkeys(found) if _usable(a)]


def addresses(host: str, port: int) -> list[str]:
    """The URLs a phone on the same network can open, for a server bound to ``host``."""
    if host in ANY:
        hosts = lan_addresses()
    else:
        hosts = [host]
    return [f"http://{'[' + h + ']' if ':' in h else h}:{port}/" for h in hosts]


def qr_lines(text: str) -> list[str]:
    """``text`` as a QR code drawn with half blocks, two rows of modules a line (dark on light, as a
    phone's camera reads it from a dark or light terminal: the light border is drawn too)."""
    import segno

    rows = [[bool(v) for v in row] for row in segno.make(text, error="m", boost_error=False).matrix_iter(scale=1,
                                                                                                           border=2)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    chars = {(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}
    return ["".join(chars[top, bottom] for top, bottom in zip(rows[y], rows[y + 1])) for y in range(0, len(rows), 2)]


def banner(host: str, port: int, pin: str | None, db: str, qr: bool = True, read_pin: bool = False) -> list[str]:
    """The lines ``mjcam serve`` prints on starting (``qr``: with the first address as a QR code;
    ``read_pin``: the PIN is asked for reading too)."""
    if host in LOCAL:
        lines = [f"mjcam: the table app is at http://{'[::1]' if host == '::1' else host}:{port}/ on this computer only",
                 "mjcam: for the phones at the table, start it with --host 0.0.0.0 "
                 "(a game PIN is then asked before any change)"]
    else:
        urls = addresses(host, port)
        if not urls:
            lines = [f"mjcam: listening on {host} port {port}, but this computer has no network address a phone "
                     "could reach: is it on the table's Wi-Fi?"]
        else:
            lines = [f"mjcam: open {urls[0]} on a phone on the same network"]
            lines += [f"mjcam:   or {u}" for u in urls[1:]]
            if qr:
                try:
                    lines += ["mjcam: or scan this with the phone's camera" + (" (it carries the PIN)" if pin else ""),
                              *qr_lines(urls[0] + (f"#pin={quote(pin, safe='')}" if pin else ""))]
                except ImportError:
                    lines.append("mjcam: (pip install segno to have the address shown as a QR code)")
    if pin and read_pin:
        lines.append(f"mjcam: game PIN {pin} (asked before reading or changing the ledger)")
    elif pin:
        lines.append(f"mjcam: game PIN {pin} (asked before any change to the ledger)")
        if host not in LOCAL:
            lines.append("mjcam: anyone on the network can read the games, their CSV and photos without it "
                         "(--read-pin asks it for reading too)")
    lines.append(f"mjcam: ledger {db}")
    return lines
