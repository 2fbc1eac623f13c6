"""A game's seats: who holds each (a person's token hash and name, or a bot).

Tokens are secret: only their SHA-256 hashes are kept, and a seat is found
from a token by comparing hashes in constant time.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from server.storage.base import Tokens


def hash_token(token: str) -> str:
    """The stored form of a seat token (only hashes are kept)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh secret seat token."""
    return secrets.token_urlsafe(24)


def request_digest(*parts: str) -> str:
    """The stored form of a request id with its scope (``"join", game, id``): the id
    itself is never kept, whoever knows it may get the answer again."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _pad(parts: tuple[str, ...]) -> bytes:
    return hashlib.sha512("\0".join(("seal", *parts)).encode()).digest()


def seal(token: str, *parts: str) -> str:
    """``token`` hidden under a key made from ``parts`` (the scope and request id
    of a join), to give back to a retry of that join: neither the store nor the
    log holds the token, nor anything that leads to it without the id."""
    data = token.encode()
    pad = _pad(parts)
    if len(data) > len(pad):
        raise ValueError("the token is too long to seal")
    return bytes(a ^ b for a, b in zip(data, pad, strict=False)).hex()


def unseal(sealed: str, *parts: str) -> str:
    """The token :func:`seal` hid under ``parts``."""
    data = bytes.fromhex(sealed)
    return bytes(a ^ b for a, b in zip(data, _pad(parts), strict=False)).decode()


class Seats:
    """The seats of one game in seat order, and who holds them."""

    def __init__(self, colours: list[str], bots: dict[str, str]) -> None:
        self.colours = list(colours)
        self._tokens: dict[str, str] = {}  # colour -> token hash
        self._names: dict[str, str] = {}  # colour -> display name
        #: Colour -> bot level, for seats a bot plays.
        self.bots: dict[str, str] = dict(bots)
        #: Colour -> why a bot took the seat over.
        self.takeover: dict[str, str] = {}
        self._summary: list[dict[str, Any]] | None = None  # until the seats change

    def taken(self, colour: str) -> bool:
        """Whether somebody (a person or a bot) holds ``colour``."""
        return colour in self._tokens or colour in self.bots

    def open(self) -> list[str]:
        """The seats nobody holds, in seat order."""
        return [c for c in self.colours if not self.taken(c)]

    def name(self, colour: str) -> str:
        """The display name of the person holding ``colour`` ("" if none)."""
        return self._names.get(colour, "")

    def holder(self, token_hash: str) -> str | None:
        """The colour whose token has this hash, if any."""
        found = None
        for colour, held in self._tokens.items():
            if secrets.compare_digest(held, token_hash):
                found = colour
        return found

    def hashes(self) -> list[str]:
        """The token hashes of every seat a person holds."""
        return list(self._tokens.values())

    def join(self, colour: str, token_hash: str, name: str) -> Tokens:
        """A person takes ``colour``."""
        self._summary = None
        self._tokens[colour] = token_hash
        self._names[colour] = name
        return Tokens(added=(token_hash,))

    def leave(self, colour: str) -> Tokens:
        """The person holding ``colour`` gives it up."""
        self._summary = None
        token = self._tokens.pop(colour, None)
        self._names.pop(colour, None)
        return Tokens(removed=(token,) if token else ())

    def take_over(self, colour: str, level: str, reason: str) -> Tokens:
        """A bot of ``level`` takes ``colour`` (its person's token stops working)."""
        self._summary = None
        token = self._tokens.pop(colour, None)
        self.bots[colour] = level
        self.takeover[colour] = reason
        return Tokens(removed=(token,) if token else ())

    def summary(self) -> list[dict[str, Any]]:
        """Each seat as stored in the game's summary (the same list until the seats change)."""
        if self._summary is None:
            self._summary = self._summarize()
        return self._summary

    def _summarize(self) -> list[dict[str, Any]]:
        return [
            {
                "colour": c,
                "name": self._names.get(c, ""),
                "occupied": self.taken(c),
                "bot": self.bots.get(c, ""),
                "takeover": self.takeover.get(c, ""),
            }
            for c in self.colours
        ]
