"""Client channels to one game server or several nodes of one.

``"host:port"`` or ``"host:port,host:port,…"``: every name is resolved once,
and the channel spreads calls round robin over the addresses (gRPC's
``round_robin`` load balancing) and retries a call that fails with
``UNAVAILABLE`` on another address (gRPC's retry policy), so a client keeps
working while a node is down. A refusal is ``UNAVAILABLE`` only when nothing
was done (a node that is down or stopping, a game that moved), so a retry is
safe; actions also carry request ids. A watch that breaks mid-stream is the
client's to resume, after the last sequence it received.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from typing import Any

import grpc

SERVICE = "tongiaki.v1.GameService"

#: Load balancing and retries for every method of the service.
SERVICE_CONFIG = {
    "loadBalancingConfig": [{"round_robin": {}}],
    "methodConfig": [
        {
            "name": [{"service": SERVICE}],
            "retryPolicy": {
                "maxAttempts": 5,
                "initialBackoff": "0.1s",
                "maxBackoff": "2s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ],
}

#: Channel options that turn them on.
OPTIONS: list[tuple[str, Any]] = [
    ("grpc.service_config", json.dumps(SERVICE_CONFIG)),
    ("grpc.enable_retries", 1),
]


def addresses(text: str) -> list[tuple[str, int]]:
    """The ``host:port`` pairs of a comma-separated list (hosts may be ``[v6]``)."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        host, sep, port = item.rpartition(":")
        if not item or not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"not HOST:PORT: {item!r}")
        found.append((host.strip("[]"), int(port)))
    return found


def target(text: str) -> str:
    """The gRPC target for the addresses in ``text``: names resolved, all of one family."""
    resolved = []
    for host, port in addresses(text):
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            infos.sort(key=lambda info: info[0] != socket.AF_INET)  # IPv4 first
            ip = ipaddress.ip_address(infos[0][4][0])
        resolved.append((ip, port))
    if len({ip.version for ip, _ in resolved}) > 1:
        raise ValueError(f"the addresses mix IPv4 and IPv6: {text!r}")
    if resolved[0][0].version == 4:
        return "ipv4:" + ",".join(f"{ip}:{port}" for ip, port in resolved)
    return "ipv6:" + ",".join(f"[{ip}]:{port}" for ip, port in resolved)


def _secure(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """Target and options of a TLS channel: the names are what certificates are checked for."""
    found = addresses(text)
    if len(found) == 1:
        return text.strip(), OPTIONS
    return target(text), [*OPTIONS, ("grpc.ssl_target_name_override", found[0][0])]


def channel(text: str, credentials: grpc.ChannelCredentials | None = None) -> grpc.Channel:
    """A blocking channel to the server(s) in ``text`` (TLS with ``credentials``)."""
    if credentials is None:
        return grpc.insecure_channel(target(text), options=OPTIONS)
    secure, options = _secure(text)
    return grpc.secure_channel(secure, credentials, options=options)


def aio_channel(text: str, credentials: grpc.ChannelCredentials | None = None) -> grpc.aio.Channel:
    """An asyncio channel to the server(s) in ``text`` (TLS with ``credentials``)."""
    if credentials is None:
        return grpc.aio.insecure_channel(target(text), options=OPTIONS)
    secure, options = _secure(text)
    return grpc.aio.secure_channel(secure, credentials, options=options)
