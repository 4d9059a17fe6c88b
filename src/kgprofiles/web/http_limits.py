"""A limit on the head of an HTTP request (its request line and header fields), for the server
``kgprofiles serve`` runs.

uvicorn parses HTTP with httptools, which keeps whatever head a client sends: one request with
200 MB of header fields was read whole (the server grew by 213 MB, and answered 200), so a few
such connections would exhaust the machine's memory. uvicorn's own limit applies only to its
pure-Python parser (h11, 16 KB), which costs about a third more CPU a request. ``BoundedHead``
is uvicorn's httptools protocol with a limit: past ``MAX_HEAD_BYTES`` received before a
request's header fields are complete, the client gets ``431 Request Header Fields Too Large``
and the connection is closed, before more is read.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Bytes of request line and header fields a request may have (a SPARQL query sent by GET fits
#: in it up to about 60 KB; longer ones are sent by POST, up to 10 MiB).
MAX_HEAD_BYTES = 64 * 1024
_MESSAGE = f"The request's line and header fields are larger than {MAX_HEAD_BYTES // 1024} KiB.\n".encode()
_REFUSAL = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(_MESSAGE)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _MESSAGE
)


class BoundedHead(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request whose head is larger than
    ``MAX_HEAD_BYTES`` (counted over what is received while a head is being read: at most one
    read more for requests sent one after another on a connection)."""

    _in_head = True  # (a connection begins with a request's head)
    _head_bytes = 0
    _refused = False

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head:
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refused = True
                self.transport.write(_REFUSAL)
                self.transport.close()
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        super().on_headers_complete()
