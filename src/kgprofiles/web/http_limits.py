"""A limit on the head of an HTTP request (its request line and header fields), for the server
``kgprofiles serve`` runs.

uvicorn parses HTTP with httptools, which keeps whatever head a client sends: one request with
200 MB of header fields was read whole (the server grew by 213 MB, and answered 200), so a few
such connections would exhaust the machine's memory. uvicorn's own limit applies only to its
pure-Python parser (h11, 16 KB), which costs about a third more CPU a request. ``BoundedHead``
is uvicorn's httptools protocol with a limit: past ``MAX_HEAD_BYTES`` of request line and header
fields, the client gets ``431 Request Header Fields Too Large`` and the connection is closed,
before more is read (a body is not counted: a large POST is the endpoint's to judge).

The process's descriptors are raised too (``raise_descriptor_limit``): a connection holds one
while its head arrives, and with a common default of 1,024 a client keeping a thousand silent
connections open would shut every other client out.

Nor did anything limit the time a head may take: a connection that sent nothing, or half a head,
stayed open (still open after 20 s, measured; uvicorn times out only the idle time between two
requests), and enough of them take every connection the process may have. A head now has
``HEAD_TIMEOUT_S`` from the connection (or the first byte of the next request on it) to be
complete, else ``408 Request Timeout`` and the connection is closed.

And one client could hold every connection: 5,000 idle ones from one address were all kept. A
client (an IPv4 address, or an IPv6 /64: one holder's network) may hold
``DEFAULT_CONNECTIONS_PER_CLIENT`` connections at once in a process (``serve
--client-connections``; 0 lifts it, for a reverse proxy through which every connection comes
from one address); past it a connection gets ``429 Too Many Requests`` and is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import resource

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Bytes of request line and header fields a request may have (a SPARQL query sent by GET fits
#: in it up to about 60 KB; longer ones are sent by POST, up to 10 MiB).
MAX_HEAD_BYTES = 64 * 1024
#: Seconds a request's head may take to arrive whole.
HEAD_TIMEOUT_S = 30.0
_LATE = b"The request's line and header fields did not arrive in time.\n"
_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(_LATE)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _LATE
)
_MESSAGE = f"The request's line and header fields are larger than {MAX_HEAD_BYTES // 1024} KiB.\n".encode()
_REFUSAL = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(_MESSAGE)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _MESSAGE
)
#: Connections one client may hold at once in a process (a browser holds up to 6 to a host; a
#: network behind one address, a few dozen browsers).
DEFAULT_CONNECTIONS_PER_CLIENT = 256
#: Seconds a refused connection is kept, half-closed, for its client to read the refusal.
LINGER_S = 2.0
_BUSY = b"This client holds too many connections to this server; close some and try again.\n"
_TOO_MANY = (
    b"HTTP/1.1 429 Too Many Requests\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 5\r\n"
    b"content-length: " + str(len(_BUSY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _BUSY
)


def client_key(host: str) -> str:
    """Whom a connection from ``host`` counts against: an IPv4 address itself, an IPv6 address
    its /64 (one network's holder has all of its 2**64 addresses); anything else as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


class BoundedHead(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request whose line and header fields are larger
    than ``MAX_HEAD_BYTES`` (counted as the parser hands them over, the body never) or take
    longer than ``HEAD_TIMEOUT_S`` to arrive."""

    _in_head = True  # (a connection begins with a request's head)
    _head_bytes = 0  # of the line and fields the parser handed over
    _received = 0  # bytes received while a head was being read (a field the parser still holds)
    _too_large = False
    _head_timer: asyncio.TimerHandle | None = None
    _counted_as: str | None = None  # the client this connection counts against
    _refused = False  # (answered 429: what arrives is dropped)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self._admit():
            self._refuse()
            return
        self._time_head()

    def _refuse(self) -> None:
        """Answer 429 and close; what the client sent meanwhile is read and dropped for up to
        ``LINGER_S`` (a socket closed with unread input is reset, and the reset can destroy the
        answer before the client reads it)."""
        self._refused = True
        self.transport.write(_TOO_MANY)
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_S, self.transport.close)
        else:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._untime_head()
        if self._counted_as is not None:
            held = self._held()
            held[self._counted_as] -= 1
            if not held[self._counted_as]:
                del held[self._counted_as]
            self._counted_as = None
        super().connection_lost(exc)

    def _held(self) -> dict[str, int]:
        """Connections each client holds, for this server (kept with its state)."""
        held = getattr(self.server_state, "kgprofiles_held", None)
        if held is None:
            held = self.server_state.kgprofiles_held = {}  # type: ignore[attr-defined]
        return held

    def _admit(self) -> bool:
        """Count this connection against its client, unless the client holds its limit already."""
        limit = getattr(self.config, "connections_per_client", DEFAULT_CONNECTIONS_PER_CLIENT)
        if not limit or self.client is None:
            return True
        key = client_key(self.client[0])
        held = self._held()
        if held.get(key, 0) >= limit:
            return False
        held[key] = held.get(key, 0) + 1
        self._counted_as = key
        return True

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head:
            self._received += len(data)
        super().data_received(data)
        # One field longer than the limit is held by the parser until it ends: refused once
        # that much arrived without a complete head (at most one read of the socket more).
        if self._in_head and self._received > MAX_HEAD_BYTES and not self.transport.is_closing():
            self._too_large = True
            self.send_400_response("")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        if not self._in_head:  # (the next request on the connection: its own time)
            self._in_head = True
            self._time_head()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:
            self._too_large = True
            raise ValueError("the head is too large")  # (stops the parser: uvicorn answers 400, see below)

    def send_400_response(self, msg: str) -> None:
        if self._too_large:
            self.transport.write(_REFUSAL)
            self.transport.close()
        else:
            super().send_400_response(msg)

    def on_headers_complete(self) -> None:
        self._in_head, self._received = False, 0
        self._untime_head()
        super().on_headers_complete()

    def _time_head(self) -> None:
        self._untime_head()
        self._head_timer = self.loop.call_later(HEAD_TIMEOUT_S, self._too_late)

    def _untime_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_late(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            self.transport.write(_TIMEOUT)
            self.transport.close()


#: Open descriptors ``serve`` asks for (never past the hard limit).
WANTED_DESCRIPTORS = 65536


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open descriptors to ``WANTED_DESCRIPTORS`` (or the hard
    limit, if lower) when it is below; the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(WANTED_DESCRIPTORS, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return soft


def server_config(app: object, *, connections_per_client: int = DEFAULT_CONNECTIONS_PER_CLIENT) -> uvicorn.Config:
    """How ``kgprofiles serve`` runs ``app`` with uvicorn (the tests' servers too); a client may
    hold ``connections_per_client`` connections at once (0: any number)."""
    config = uvicorn.Config(app, http=BoundedHead, log_level="warning", access_log=False, lifespan="on")  # type: ignore[arg-type]
    config.connections_per_client = connections_per_client  # type: ignore[attr-defined]  # (read by BoundedHead)
    return config
