"""A small Server-Sent Events reader for the tests (what EventSource does in a browser)."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any


@dataclass
class Event:
    """One event: its type, id (sequence) and JSON data."""

    kind: str
    ident: str | None
    data: Any


class EventStream:
    """An open event stream; :meth:`next` reads one event."""

    def __init__(self, url: str, last_id: int | None = None, timeout: float = 20.0) -> None:
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port, timeout=timeout
        )
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        self.connection.request(
            "GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers
        )
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self.comments = 0

    def next(self) -> Event:
        """The next event (comments and retry lines are skipped)."""
        kind: str = "message"
        ident: str | None = None
        data: list[str] = []
        while True:
            raw = self.response.readline()
            if not raw:
                raise EOFError("the stream ended")
            line = raw.decode().rstrip("\n")
            if line == "":
                if data:
                    return Event(kind, ident, json.loads("\n".join(data)))
                kind, ident, data = "message", None, []
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "":
                self.comments += 1
            elif field == "event":
                kind = value
            elif field == "id":
                ident = value
            elif field == "data":
                data.append(value)

    def until(self, kind: str) -> Event:
        """Read events until one of ``kind``."""
        while True:
            event = self.next()
            if event.kind == kind:
                return event

    def close(self) -> None:
        """Hang up."""
        self.connection.close()
