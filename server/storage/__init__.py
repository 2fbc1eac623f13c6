"""Where games are kept: the interface, and SQLite or PostgreSQL behind it.

The bottom of the server: may import nothing of ours (no ``engine``, no other
``server`` package) and knows no grpc or protobuf; a game is rows and JSON here.
"""

from __future__ import annotations

from pathlib import Path

from server.storage.base import Store
from server.storage.postgres import PostgresStore, is_url
from server.storage.sqlite import SqliteStore


def open_store(
    database: str | None,
    data_dir: Path,
    *,
    synchronous: str = "FULL",
    address: str = "",
    lease: float = 1.5,
) -> Store:
    """The store ``database`` names: a ``postgresql://`` URL, else SQLite in ``data_dir``.

    ``address`` is where other nodes reach this one and ``lease`` how long its
    claim on its games lasts unrenewed (PostgreSQL only).
    """
    if is_url(database):
        assert database is not None
        return PostgresStore(database, address=address, lease=lease)
    path = Path(database) if database else data_dir / "tongiaki.sqlite3"
    return SqliteStore(path, synchronous)
