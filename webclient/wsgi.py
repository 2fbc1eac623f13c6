"""Serving the gateway: Cheroot, a production threaded WSGI server.

Every open event stream keeps one worker thread (WSGI streams by blocking), so
the gateway holds at most ``threads - reserve`` streams at once and answers
more with 503 ``TOO_MANY_STREAMS``: the reserved workers keep the rest of the
API answering however many browsers watch. The game server still sees one
watch per game however many browsers follow it.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

from cheroot import errors as cheroot_errors
from cheroot import server as http
from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter

from webclient.limits import SOCKET_KEY, GatewayReason


def reserve(threads: int) -> int:
    """Workers kept free of event streams for the rest of the API."""
    return max(4, threads // 8)


class _Headers(dict[bytes, bytes]):
    """Request headers as Cheroot reads them, except that a repeated
    ``Authorization`` keeps every value, joined by a line feed (which no header
    value can hold), so the gateway can refuse it instead of picking one."""

    def __setitem__(self, key: bytes, value: bytes) -> None:
        if key == b"Authorization" and key in self:
            value = self[key] + b"\n" + value
        super().__setitem__(key, value)


class _HeaderReader(http.HeaderReader):
    def __call__(self, rfile: Any, hdict: Any = None) -> Any:
        headers = _Headers()
        super().__call__(rfile, headers)
        if b"Transfer-Encoding" in headers and b"Content-Length" in headers:
            # Two framings of one body: refused, as RFC 9112 allows (and
            # request smuggling needs), instead of waiting for a body that
            # never ends.
            raise ValueError("Transfer-Encoding and Content-Length together")
        length = headers.get(b"Content-Length")
        if length is not None and not (length.isdigit() and len(length) <= 18):
            raise ValueError("Content-Length must be a number of bytes")
        if hdict is None:
            return dict(headers)
        hdict.update(headers)
        return hdict


#: HTTP status -> reason, for what Cheroot refuses before the app sees a request.
_REASONS = {
    "413": GatewayReason.REQUEST_TOO_LARGE,
    "414": GatewayReason.REQUEST_TOO_LARGE,
    "431": GatewayReason.REQUEST_TOO_LARGE,
}


class _Request(http.HTTPRequest):
    header_reader = _HeaderReader()

    def simple_response(self, status: Any, msg: Any = "") -> None:
        """What Cheroot answers by itself (a request line or header it cannot
        read, a body too large, a failure): the API's JSON error, not plain text."""
        status = str(status)
        if status[:3] in ("501", "505"):
            # Cheroot's answers to a transfer coding or an HTTP version it does
            # not take: the request is at fault, not the server.
            msg, status = msg or status, "400 Bad Request"
        code = status[:3]
        if isinstance(msg, bytes):
            msg = msg.decode("latin-1")
        if code.startswith("5"):
            reason = GatewayReason.INTERNAL_ERROR
        else:
            reason = _REASONS.get(code, GatewayReason.INVALID_REQUEST)
        body = json.dumps(
            {
                "error": {
                    "code": int(code) if code.isdigit() else 400,
                    "status": "INVALID_ARGUMENT" if code.startswith("4") else "INTERNAL",
                    "reason": reason,
                    "message": str(msg)[:500] or status,
                    "metadata": {},
                }
            }
        ).encode()
        head = [
            f"{self.server.protocol} {status}\r\n".encode("latin-1"),
            f"Content-Length: {len(body)}\r\n".encode("latin-1"),
            b"Content-Type: application/json\r\n",
        ]
        if code.startswith("4") or code.startswith("5"):
            # After a request it could not read, nothing more on this connection can be.
            self.close_connection = True
            head.append(b"Connection: close\r\n")
        head.append(b"\r\n")
        try:
            self.conn.wfile.write(b"".join(head) + body)
        except OSError as error:
            if error.args and error.args[0] not in cheroot_errors.socket_errors_to_ignore:
                raise


class _WsgiGateway(wsgi.Gateway_10):
    """Cheroot's WSGI 1.0 gateway, handing the app the connection's socket too
    (the body deadline of webclient.limits shuts its reading side)."""

    def get_environ(self) -> dict[str, Any]:  # type: ignore[override]
        environ: dict[str, Any] = super().get_environ()  # type: ignore[no-untyped-call]
        environ[SOCKET_KEY] = self.req.conn.socket
        return environ


class _Connection(http.HTTPConnection):
    RequestHandlerClass = _Request


class Gateway:
    """A WSGI app served on ``host:port`` (0 picks a free port) in background threads.

    With ``tls_cert`` and ``tls_key`` (PEM files) it serves HTTPS.
    """

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        threads: int = 100,
        *,
        tls_cert: Path | None = None,
        tls_key: Path | None = None,
    ):
        if port == 0:
            # Cheroot sets SO_REUSEADDR only on a port given explicitly; with it a
            # restarted gateway can bind the same port while old connections linger.
            port = free_port(host)
        self.server = wsgi.Server(
            (host, port),
            app,
            numthreads=threads,
            max=threads,
            request_queue_size=128,
            timeout=30,
            shutdown_timeout=2,
            server_name="tongiaki",
        )
        self.server.ConnectionClass = _Connection
        self.server.gateway = _WsgiGateway
        self.scheme = "http"
        if tls_cert is not None and tls_key is not None:
            self.server.ssl_adapter = BuiltinSSLAdapter(str(tls_cert), str(tls_key))
            self.scheme = "https"
        streams = getattr(app, "extensions", {}).get("tongiaki.streams")
        if streams is not None and not streams.capacity:
            streams.capacity = threads - reserve(threads)
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Bind, start serving, and return the base URL."""
        self.server.prepare()
        self._thread = threading.Thread(target=self.server.serve, name="gateway", daemon=True)
        self._thread.start()
        return self.url

    @property
    def port(self) -> int:
        """The port actually bound."""
        return int(self.server.bind_addr[1])

    @property
    def url(self) -> str:
        """``http(s)://host:port``."""
        host = self.server.bind_addr[0]
        if ":" in host:
            host = f"[{host}]"
        return f"{self.scheme}://{host}:{self.port}"

    def stop(self) -> None:
        """Stop accepting and wait for the workers."""
        self.server.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)


def free_port(host: str) -> int:
    """A port that was free on ``host`` a moment ago."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port
