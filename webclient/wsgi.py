"""Serving the gateway: Cheroot, a production threaded WSGI server.

Every open event stream keeps one worker thread (WSGI streams by blocking), so
the gateway holds at most ``threads - reserve`` streams at once and answers
more with 503 ``TOO_MANY_STREAMS``: the reserved workers keep the rest of the
API answering however many browsers watch. The game server still sees one
watch per game however many browsers follow it.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

from cheroot import server as http
from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter


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
        if hdict is None:
            return dict(headers)
        hdict.update(headers)
        return hdict


class _Request(http.HTTPRequest):
    header_reader = _HeaderReader()


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
