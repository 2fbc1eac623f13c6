"""Past states without replays: a watch may carry the board after every entry,
and GetGame ``at_sequence`` is answered from checkpoints, whatever the game's length."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from server_harness import COLOURS, auth, new_game, play_seat, random_chooser, running

from engine import Game
from server.game.authority import Limits
from server.rpc import codec as convert
from server.storage.base import Entry
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb


def _replayed(record: dict[str, Any], actions: int) -> Game:
    return Game.from_record({**record, "actions": record["actions"][:actions]})


def test_a_watch_carries_the_board_after_every_entry_as_its_viewer_sees_it(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 3)
            yellow = COLOURS[0]

            async def watch(metadata: list[tuple[str, str]], boards: bool) -> list[Any]:
                request = spb.WatchGameRequest(name=name, include_boards=boards)
                return [m async for m in stub.WatchGame(request, metadata=metadata)]

            watches = [
                asyncio.ensure_future(watch([], True)),
                asyncio.ensure_future(watch(auth(tokens[yellow]), True)),
                asyncio.ensure_future(watch([], False)),
            ]
            await asyncio.sleep(0)  # the watches open before the first move
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            spectator, seat, plain = await asyncio.gather(*watches)
            record = json.loads(
                (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record_json
            )
            first = spectator[0].snapshot.sequence
            last = len(record["actions"])
            assert not any(m.boards for m in plain)
            for messages, viewer in [(spectator, None), (seat, "yellow")]:
                entries = [e.sequence for m in messages for e in m.entries]
                boards = {b.sequence: b for m in messages for b in m.boards}
                # One board per entry, for every entry after the first snapshot.
                assert sorted(boards) == entries == list(range(first + 1, entries[-1] + 1))
                for sequence, board in boards.items():
                    actions = board.view.step
                    expected = _replayed(record, actions).view(viewer)
                    assert board.view == convert.view_to_proto(expected), sequence
                    assert board.game.sequence == sequence
                assert boards[entries[-1]].view.step == last
                assert boards[entries[-1]].game.state == pb.GAME_STATE_FINISHED
                # A watch resumed from the store gets the boards of the entries it replays.
                request = spb.WatchGameRequest(name=name, after_sequence=2, include_boards=True)
                metadata = auth(tokens[yellow]) if viewer else []
                again = [m async for m in stub.WatchGame(request, metadata=metadata)]
                replayed = {b.sequence: b for m in again for b in m.boards}
                assert sorted(replayed) == list(range(3, entries[-1] + 1))
                assert all(replayed[s] == boards[s] for s in boards)

    asyncio.run(main())


def test_at_sequence_reads_at_most_k_entries_from_the_store(tmp_path: Path) -> None:
    every = 8

    async def main() -> None:
        limits = Limits(checkpoint_every=every)
        async with running(tmp_path, limits) as (server, stub, _channel):
            name, tokens = await new_game(stub, 3)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            record = json.loads(
                (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record_json
            )
            last = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.sequence
            assert last > 4 * every
            store = server.store
            reads: list[int] = []
            loads: list[bool] = []
            entries, load = store.entries, store.load

            async def counted_entries(game: str, after: int, limit: int) -> list[Entry]:
                found = await entries(game, after, limit)
                reads[-1] += len(found)
                return found

            async def counted_load(game: str, *, entries: bool = True) -> Any:
                loads.append(entries)
                return await load(game, entries=entries)

            store.entries = counted_entries  # type: ignore[method-assign]
            store.load = counted_load  # type: ignore[method-assign]
            started = None
            for at in range(last + 1):
                reads.append(0)
                got = await stub.GetGame(spb.GetGameRequest(name=name, at_sequence=at))
                past = got.snapshot
                assert past.sequence == at
                if past.HasField("view"):
                    started = at if started is None else started
                    expected = _replayed(record, at - started).view(None)
                    assert past.view == convert.view_to_proto(expected), at
            assert started is not None
            assert max(reads) <= every, reads
            assert True not in loads, "at_sequence read the whole log"

    asyncio.run(main())
