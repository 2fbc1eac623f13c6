"""Concurrent submissions apply exactly once; interrupted watches resume exactly."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
from server_harness import (
    Seen,
    auth,
    error_info,
    new_game,
    play_seat,
    random_chooser,
    running,
    spectate,
)

from server.game.authority import Limits
from server.game.fanout import End, Hub
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc


def test_concurrent_same_and_stale_submissions_apply_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 3)
            for round_ in range(12):
                got = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                decision = got.view.decision
                md = auth(tokens[decision.player])
                option = decision.options[round_ % len(decision.options)]

                def submit(
                    request_id: str,
                    sequence: int = got.sequence,
                    md: list[tuple[str, str]] = md,
                    option: pb.Action = option,
                ) -> Any:
                    return stub.SubmitAction(
                        spb.SubmitActionRequest(
                            name=name, sequence=sequence, request_id=request_id, action=option
                        ),
                        metadata=md,
                    )

                # Many copies of one request (a client retrying) and many distinct requests
                # for the same state, plus requests for older states, all at once.
                calls = [submit(f"{round_}-same") for _ in range(15)]
                calls += [submit(f"{round_}-other-{i}") for i in range(15)]
                calls += [submit(f"{round_}-old-{i}", got.sequence - 1 - i % 3) for i in range(10)]
                results = await asyncio.gather(*calls, return_exceptions=True)
                ok = [r for r in results if isinstance(r, spb.SubmitActionResponse)]
                failed = [error_info(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
                assert len(ok) + len(failed) == len(results)
                assert {r.entry.sequence for r in ok} == {got.sequence + 1}
                assert len({r.SerializeToString() for r in ok}) == 1
                assert {(c, reason) for c, reason, _ in failed} == {
                    (grpc.StatusCode.ABORTED, "STALE_SEQUENCE")
                }
                # Either the 15 copies of one request won together, or another request did.
                assert len(ok) in (15, 1)
                after = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                assert after.sequence == got.sequence + 1
                # A late retry of the winning request returns the original result again.
                winner = f"{round_}-same" if len(ok) == 15 else None
                if winner is not None:
                    again = await submit(winner)
                    assert again.SerializeToString() == ok[0].SerializeToString()
                    after = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                    assert after.sequence == got.sequence + 1

    asyncio.run(main())


async def _interrupted(stub: rpc.GameServiceStub, name: str, rng: random.Random) -> Seen:
    """Watch with random disconnects, resuming after the last sequence seen each time."""
    seen = Seen()
    after: int | None = None
    while True:
        request = spb.WatchGameRequest(name=name)
        if after is not None:
            request.after_sequence = after
        call = stub.WatchGame(request)
        budget = rng.randint(1, 6)
        finished = True
        async for message in call:
            seen.take(message)
            budget -= 1
            if budget == 0:
                call.cancel()
                finished = False
                break
        if finished:
            return seen
        after = seen.sequence


def test_watchers_resume_exactly(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 4)
            uninterrupted = asyncio.create_task(spectate(stub, name))
            flaky = [
                asyncio.create_task(_interrupted(stub, name, random.Random(i))) for i in range(4)
            ]
            await asyncio.sleep(0.05)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            reference = await uninterrupted
            expected = [e.SerializeToString() for e in reference.entries()]
            first = reference.messages[0].snapshot.sequence
            for task in flaky:
                seen = await task
                # Compare from where both watchers had started (either may subscribe late).
                start = max(seen.messages[0].snapshot.sequence, first)
                got = [e.SerializeToString() for e in seen.entries() if e.sequence > start]
                tail = [e.SerializeToString() for e in reference.entries() if e.sequence > start]
                assert got == tail
                assert len(got) == len(set(got))
            assert len(expected) > 50  # a whole game: set-up, turns, voyages

    asyncio.run(main())


def test_a_watcher_that_falls_behind_is_cut_off_alone() -> None:
    async def main() -> None:
        hub = Hub(limit=3)
        slow, fast = hub.subscribe(0), hub.subscribe(0)
        for sequence in range(1, 4):
            hub.publish(sequence, b"%d" % sequence)
        assert await fast.next() == b"123"
        hub.publish(4, b"4")  # the slow watcher has 3 frames waiting: it is cut off
        assert await slow.next() is End.LAGGING
        assert slow.delivered == 0
        assert len(hub) == 1
        assert await fast.next() == b"4"
        hub.close(End.FINISHED)
        assert await fast.next() is End.FINISHED

    asyncio.run(main())


def test_a_resume_older_than_memory_is_read_from_the_store(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, Limits(resume_window=5)) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            final = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
            old = [
                m async for m in stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=0))
            ]
            entries = [e for m in old for e in m.entries]
            assert not any(m.HasField("snapshot") for m in old)
            assert [e.sequence for e in entries] == list(range(1, final.sequence + 1))
            # The entries read back are the ones sent live.
            live = [m async for m in stub.WatchGame(spb.WatchGameRequest(name=name))]
            assert live[0].snapshot == final
            listed = await stub.ListGameEntries(
                spb.ListGameEntriesRequest(name=name, after_sequence=final.sequence - 3)
            )
            assert list(listed.entries) == entries[-3:]
            assert listed.sequence == final.sequence and not listed.more

    asyncio.run(main())


def test_too_old_resume_gets_a_snapshot(tmp_path: Path) -> None:
    async def main() -> None:
        limits = Limits(resume_window=5, replay_from_store=3)
        async with running(tmp_path, limits) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            final = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
            old = [
                m
                async for m in stub.WatchGame(
                    spb.WatchGameRequest(name=name, after_sequence=final.sequence - 6)
                )
            ]
            assert len(old) == 1 and old[0].HasField("snapshot")
            assert old[0].snapshot.sequence == final.sequence
            recent = [
                m
                async for m in stub.WatchGame(
                    spb.WatchGameRequest(name=name, after_sequence=final.sequence - 3)
                )
            ]
            assert [e.sequence for m in recent for e in m.entries] == [
                final.sequence - 2,
                final.sequence - 1,
                final.sequence,
            ]
            assert not any(m.HasField("snapshot") for m in recent)
            with_error = stub.WatchGame(
                spb.WatchGameRequest(name=name, after_sequence=final.sequence + 1)
            )
            try:
                await with_error.read()
                raise AssertionError("a sequence from the future was accepted")
            except grpc.aio.AioRpcError as error:
                assert error_info(error)[1] == "SEQUENCE_OUT_OF_RANGE"

    asyncio.run(main())
