"""Serving the gateway: Cheroot, a production threaded WSGI server.

Every open event stream keeps one worker thread (WSGI streams by blocking), so
the pool is sized for the browsers expected at once; the game server still sees
one watch per game however many browsers follow it.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from cheroot import wsgi


class Gateway:
    """A WSGI app served on ``host:port`` (0 picks a free port) in background threads."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 100):
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
        """``http://host:port``."""
        host = self.server.bind_addr[0]
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

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
