"""The SQLite store refuses appends that do not follow a game's last entry."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from server.storage.base import Conflict, Entry, Setup, Summary, Tokens
from server.storage.sqlite import SqliteStore

pytestmark = pytest.mark.sqlite_only


def _entry(sequence: int) -> Entry:
    return Entry(sequence, "left", {"colour": "yellow"})


def test_only_the_next_entry_is_appended_before_and_after_a_restart(tmp_path: Path) -> None:
    async def main() -> None:
        path = tmp_path / "games.sqlite3"
        store = SqliteStore(path)
        await store.start()
        try:
            setup = Setup("g1", await store.next_ordinal(), ["yellow", "red"], ["t"] * 31, {}, 0.0)
            await store.create(setup, Summary())
            joined = Entry(1, "joined", {"colour": "yellow", "token": "h", "name": "A"})
            await store.append("g1", joined, Summary(sequence=1), Tokens(added=("h",)))
            for refused in (_entry(3), _entry(1)):
                with pytest.raises(Conflict):
                    await store.append("g1", refused, Summary(sequence=refused.sequence), Tokens())
            with pytest.raises(Conflict):
                await store.append("nope", _entry(1), Summary(sequence=1), Tokens())
            # A plain action moves only the sequence: read back all the same.
            quiet = Summary(sequence=2, changed=False, attention_changed=False)
            await store.append("g1", _entry(2), quiet, Tokens())
            stored = await store.load("g1")
            assert stored is not None and stored.summary.sequence == 2
        finally:
            await store.stop()
        # A new writer knows nothing yet: it reads the last sequence from the file.
        again = SqliteStore(path)
        await again.start()
        try:
            with pytest.raises(Conflict):
                await again.append("g1", _entry(2), Summary(sequence=2), Tokens())
            await again.append("g1", _entry(3), Summary(sequence=3), Tokens())
            assert [e.sequence for e in await again.entries("g1", 0, 10)] == [1, 2, 3]
            (listed,) = await again.page(0, 10, None, False)
            assert listed.summary.sequence == 3
        finally:
            await again.stop()

    asyncio.run(main())
