"""Raw HTTP/1.1 exchanges for the tests: requests no well-behaved client would send."""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Answer:
    """A response's status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


def exchange(base: str, raw: bytes, timeout: float = 10.0, body_chunks: int = 0) -> Answer:
    """Send ``raw`` to the server at ``base`` (``http://host:port``) and read one answer.

    ``body_chunks`` more megabytes of zeros follow ``raw`` (the server may refuse
    and close before taking them all). A missing answer raises ``TimeoutError``.
    """
    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(raw)
        megabyte = b"\0" * (1 << 20)
        for _ in range(body_chunks):
            try:
                sock.sendall(megabyte)
            except OSError:
                break
        data = b""
        while b"\r\n\r\n" not in data:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise ConnectionError(f"no answer: {data[:200]!r}")
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(rest) < length:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                rest += chunk
            rest = rest[:length]
        return Answer(status, headers, rest)


def request(
    method: str,
    path: str,
    headers: Sequence[tuple[str | bytes, str | bytes]] = (),
    body: bytes = b"",
    host: str = "127.0.0.1",
) -> bytes:
    """The bytes of a request; ``Content-Length`` is added only if no header sets
    the length or the transfer coding."""
    lines = [f"{method} {path} HTTP/1.1".encode(), f"Host: {host}".encode()]
    names = set()
    for name, value in headers:
        raw_name = name.encode("latin-1") if isinstance(name, str) else name
        raw_value = value.encode("utf-8") if isinstance(value, str) else value
        names.add(raw_name.lower())
        lines.append(raw_name + b": " + raw_value)
    if body and not names & {b"content-length", b"transfer-encoding"}:
        lines.append(f"Content-Length: {len(body)}".encode())
    if b"connection" not in names:
        lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
