"""Transport security of the gRPC server and its clients: PEM certificate and key files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc


@dataclass(frozen=True)
class TlsFiles:
    """A certificate chain and its private key (PEM files) a server presents."""

    cert: Path
    key: Path
    #: The CA (PEM) that signed the other nodes' certificates, which this node
    #: checks when it forwards a call to one; None: its own certificate (nodes
    #: that share one certificate).
    peer_ca: Path | None = None

    def server_credentials(self) -> Any:
        """gRPC server credentials from the two files."""
        return grpc.ssl_server_credentials([(self.key.read_bytes(), self.cert.read_bytes())])

    def peer_credentials(self) -> Any:
        """Client credentials for calls to the other nodes, which serve TLS too."""
        return grpc.ssl_channel_credentials((self.peer_ca or self.cert).read_bytes())


def add_port(server: Any, address: str, tls: TlsFiles | None) -> int:
    """Listen on ``address``, over TLS when ``tls`` is given; the port bound."""
    if tls is None:
        port: int = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, tls.server_credentials())
    return port


def channel_credentials(ca: Path | None) -> Any:
    """Client credentials trusting ``ca`` (a PEM file), or the system's roots if None."""
    return grpc.ssl_channel_credentials(ca.read_bytes() if ca is not None else None)
