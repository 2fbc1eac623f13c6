"""SubmitActions streams, and watches that leave out a seat's own entries or hold them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from server_harness import COLOURS, auth, error_info, new_game, refused, running

from server.game.fanout import End, Hub
from server.rpc.limits import ClientLimits
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc


async def _state(stub: rpc.GameServiceStub, name: str) -> pb.GameSnapshot:
    got: spb.GetGameResponse = await stub.GetGame(spb.GetGameRequest(name=name))
    return got.snapshot


async def _stream_error(call: grpc.aio.StreamStreamCall) -> tuple[grpc.StatusCode, str]:
    try:
        got = await call.read()
    except grpc.aio.AioRpcError as error:
        code, reason, _ = error_info(error)
        return code, reason
    raise AssertionError(f"the stream went on: {got}")


def test_submit_actions_answers_in_order_and_a_refusal_ends_the_stream(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            state = await _state(stub, name)
            first = state.view.decision
            actions = stub.SubmitActions(metadata=auth(tokens[first.player]))
            request = spb.SubmitActionsRequest(
                name=name, sequence=state.sequence, request_id="a", action=first.options[0]
            )
            await actions.write(request)
            answer = await actions.read()
            assert isinstance(answer, spb.SubmitActionsResponse)
            assert answer.entry.sequence == state.sequence + 1
            assert answer.entry.action_applied.player == first.player
            assert answer.entry.action_applied.action == first.options[0]

            # The same player may go on, on the same stream, for as long as it decides.
            after = await _state(stub, name)
            assert after.sequence == state.sequence + 1
            if after.view.decision.player == first.player:
                await actions.write(
                    spb.SubmitActionsRequest(
                        name=name,
                        sequence=after.sequence,
                        request_id="b",
                        action=after.view.decision.options[0],
                    )
                )
                answer_b = await actions.read()
                assert isinstance(answer_b, spb.SubmitActionsResponse)
                assert answer_b.entry.sequence == after.sequence + 1
                after = await _state(stub, name)

            # A stale action ends the stream with SubmitAction's error; nothing is applied.
            request.request_id = "stale"
            await actions.write(request)
            assert await _stream_error(actions) == (grpc.StatusCode.ABORTED, "STALE_SEQUENCE")
            assert (await _state(stub, name)).sequence == after.sequence

            # A retry of an answered request, on a new stream or as a call, gives the
            # first answer again and applies nothing twice.
            again = stub.SubmitActions(metadata=auth(tokens[first.player]))
            request.request_id = "a"
            await again.write(request)
            repeated = await again.read()
            assert isinstance(repeated, spb.SubmitActionsResponse)
            assert repeated.SerializeToString() == answer.SerializeToString()
            unary = await stub.SubmitAction(
                spb.SubmitActionRequest.FromString(request.SerializeToString()),
                metadata=auth(tokens[first.player]),
            )
            assert unary.SerializeToString() == answer.SerializeToString()
            await again.done_writing()
            assert await again.read() is grpc.aio.EOF
            assert await again.code() == grpc.StatusCode.OK
            assert (await _state(stub, name)).sequence == after.sequence

            # Another seat's turn: refused as NOT_YOUR_TURN, the stream ends.
            waiting = next(c for c in tokens if c != after.view.decision.player)
            other = stub.SubmitActions(metadata=auth(tokens[waiting]))
            await other.write(
                spb.SubmitActionsRequest(
                    name=name,
                    sequence=after.sequence,
                    request_id="c",
                    action=after.view.decision.options[0],
                )
            )
            assert await _stream_error(other) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "NOT_YOUR_TURN",
            )
            assert (await _state(stub, name)).sequence == after.sequence

    asyncio.run(main())


def test_a_seat_given_up_cannot_act_on_a_stream_opened_before(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            state = await _state(stub, name)
            decision = state.view.decision
            old_token = tokens[decision.player]
            actions = stub.SubmitActions(metadata=auth(old_token))
            await stub.LeaveGame(spb.LeaveGameRequest(name=name), metadata=auth(old_token))
            joined = await stub.JoinGame(
                spb.JoinGameRequest(name=name, colour=decision.player, display_name="new")
            )
            assert joined.colour == decision.player
            sequence = (await _state(stub, name)).sequence  # the leave and the join
            assert sequence == state.sequence + 2

            await actions.write(
                spb.SubmitActionsRequest(
                    name=name, sequence=sequence, request_id="x", action=decision.options[0]
                )
            )
            assert await _stream_error(actions) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "TOKEN_INVALID",
            )
            assert (await _state(stub, name)).sequence == sequence

            # The seat's new holder can act.
            mine = stub.SubmitActions(metadata=auth(joined.seat_token))
            await mine.write(
                spb.SubmitActionsRequest(
                    name=name, sequence=sequence, request_id="x", action=decision.options[0]
                )
            )
            answer = await mine.read()
            assert isinstance(answer, spb.SubmitActionsResponse)
            assert answer.entry.action_applied.player == decision.player
            mine.cancel()

    asyncio.run(main())


def test_watches_leave_out_own_entries_live_and_on_resume(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            yellow = COLOURS[0]
            start = (await _state(stub, name)).sequence
            own_watch = stub.WatchGame(
                spb.WatchGameRequest(name=name, exclude_own_actions=True),
                metadata=auth(tokens[yellow]),
            )
            first = await own_watch.read()
            assert isinstance(first, spb.WatchGameResponse)
            assert first.snapshot.sequence == start
            full_watch = stub.WatchGame(spb.WatchGameRequest(name=name))
            await full_watch.read()

            players = []
            for step in range(8):
                state = await _state(stub, name)
                decision = state.view.decision
                players.append(decision.player)
                await stub.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name,
                        sequence=state.sequence,
                        request_id=f"r{step}",
                        action=decision.options[0],
                    ),
                    metadata=auth(tokens[decision.player]),
                )
            assert yellow in players and set(players) != {yellow}
            others = [start + 1 + i for i, p in enumerate(players) if p != yellow]

            async def sequences(call: grpc.aio.UnaryStreamCall, count: int) -> list[int]:
                got: list[int] = []
                while len(got) < count:
                    message = await call.read()
                    assert isinstance(message, spb.WatchGameResponse)
                    got += [e.sequence for e in message.entries]
                return got

            assert await sequences(full_watch, len(players)) == [
                start + 1 + i for i in range(len(players))
            ]
            assert await sequences(own_watch, len(others)) == others
            own_watch.cancel()
            full_watch.cancel()

            # Resumed: the same entries; a spectator's resume has all of them.
            resumed = stub.WatchGame(
                spb.WatchGameRequest(name=name, after_sequence=start, exclude_own_actions=True),
                metadata=auth(tokens[yellow]),
            )
            message = await resumed.read()
            assert isinstance(message, spb.WatchGameResponse)
            assert [e.sequence for e in message.entries] == others
            assert all(e.action_applied.player != yellow for e in message.entries)
            resumed.cancel()

            # Resumed after the last entry not its own: nothing to send, caught up.
            last_other = others[-1]
            end = start + len(players)
            if last_other < end:
                caught = stub.WatchGame(
                    spb.WatchGameRequest(
                        name=name, after_sequence=last_other, exclude_own_actions=True
                    ),
                    metadata=auth(tokens[yellow]),
                )
                message = await caught.read()
                assert isinstance(message, spb.WatchGameResponse)
                assert message.caught_up and message.sequence == end
                assert not message.entries
                caught.cancel()

            # Only a seat can leave out its own entries, or have them held until its turn.
            for request in (
                spb.WatchGameRequest(name=name, exclude_own_actions=True),
                spb.WatchGameRequest(name=name, hold_until_turn=True),
            ):
                code, reason, _ = await refused(stub.WatchGame(request).read())
                assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")

    asyncio.run(main())


def test_held_entries_are_released_by_a_full_half_buffer_and_by_the_end() -> None:
    async def main() -> None:
        hub = Hub(limit=8)
        held = hub.subscribe(0, hold_for="red")
        live = hub.subscribe(0)
        for sequence in range(1, 4):
            hub.publish(sequence, b"%d" % sequence, decider="blue")
        assert await live.next() == b"123"
        waiting = asyncio.ensure_future(held.next())
        await asyncio.sleep(0)
        assert not waiting.done()  # held: nothing for red yet
        hub.publish(4, b"4", decider="blue")  # half the buffer: released
        assert await waiting == b"1234"
        hub.publish(5, b"5", decider="blue")
        hub.publish(6, b"6", decider="red")  # red decides: released
        assert await held.next() == b"56"
        hub.publish(7, b"7", decider="blue")
        hub.close(End.FINISHED)  # the end sends what is held
        assert await held.next() == b"7"
        assert await held.next() is End.FINISHED

    asyncio.run(main())


def test_a_watcher_that_gathers_gets_the_entries_of_its_wait_in_one_message() -> None:
    async def main() -> None:
        hub = Hub(limit=64)
        gathering = hub.subscribe(0, gather=0.05)
        live = hub.subscribe(0)
        hub.publish(1, b"1")
        first = asyncio.ensure_future(gathering.next())
        assert await live.next() == b"1"
        hub.publish(2, b"2")  # while the gatherer waits: in the same message
        assert await live.next() == b"2"
        assert await first == b"12"
        hub.close(End.FINISHED)
        assert await gathering.next() is End.FINISHED

    asyncio.run(main())


def test_the_watchers_of_a_game_that_gather_as_long_go_out_together() -> None:
    # One timer of the game releases them all (not a wait of each watcher's own).
    async def main() -> None:
        hub = Hub(limit=64)
        early = hub.subscribe(0, gather=0.1)
        hub.publish(1, b"1")
        first = asyncio.ensure_future(early.next())
        await asyncio.sleep(0.03)  # the game's wait has begun
        late = hub.subscribe(1, gather=0.1)
        second = asyncio.ensure_future(late.next())
        hub.publish(2, b"2")
        done, _ = await asyncio.wait({first, second}, return_when=asyncio.FIRST_COMPLETED)
        assert done == {first, second}
        assert (first.result(), second.result()) == (b"12", b"2")
        hub.publish(3, b"3")  # a new wait for the next message
        assert await early.next() == b"3"
        hub.close(End.FINISHED)
        assert await late.next() == b"3"
        assert await late.next() is End.FINISHED

    asyncio.run(main())


def test_a_paced_watcher_gets_an_entry_at_once_and_at_most_one_message_per_wait() -> None:
    async def main() -> None:
        hub = Hub(limit=64)
        paced = hub.subscribe(0, gather=60.0, paced=True)
        hub.publish(1, b"1")  # no message for a wait: at once
        assert await asyncio.wait_for(paced.next(), 30) == b"1"
        hub.publish(2, b"2")  # the last message is not a wait old: held
        hub.publish(3, b"3")
        held = asyncio.ensure_future(paced.next())
        done, _ = await asyncio.wait({held}, timeout=0.2)
        assert not done
        hub.close(End.FINISHED)  # the end sends what is held, in one message
        assert await held == b"23"
        assert await paced.next() is End.FINISHED

    asyncio.run(main())


def test_spectators_share_one_queue_and_one_joined_batch() -> None:
    # Watchers that take every entry as it is get the same bytes, joined once;
    # a seat that leaves out its own entries still gets its own selection.
    async def main() -> None:
        hub = Hub(limit=64)
        spectators = [hub.subscribe(0, gather=60.0) for _ in range(3)]
        seat = hub.subscribe(0, skip="red")
        hub.publish_many([(1, b"1", "red", "blue", None), (2, b"2", "blue", "red", None)])
        hub.publish(3, b"3", "red", "blue")
        assert await seat.next() == b"2"
        hub.close(End.FINISHED)
        batches = [await s.next() for s in spectators]
        assert batches == [b"123"] * 3
        assert batches[0] is batches[1] is batches[2]
        assert [s.delivered for s in spectators] == [3, 3, 3]
        assert [await s.next() for s in spectators] == [End.FINISHED] * 3

    asyncio.run(main())


def test_a_gathering_spectator_goes_at_once_when_half_its_buffer_is_full() -> None:
    async def main() -> None:
        hub = Hub(limit=8)
        early = hub.subscribe(0, gather=60.0)
        for sequence in range(1, 4):
            hub.publish(sequence, b"%d" % sequence)
        late = hub.subscribe(3, gather=60.0)
        hub.publish(4, b"4")  # early holds 4 of 8: it goes without waiting out the minute
        waiting = asyncio.ensure_future(late.next())
        assert await asyncio.wait_for(early.next(), 30) == b"1234"
        done, _ = await asyncio.wait({waiting}, timeout=0.2)
        assert not done  # late holds 1 of 8: it keeps gathering
        hub.close(End.FINISHED)
        assert await waiting == b"4"
        assert await early.next() is End.FINISHED
        assert await late.next() is End.FINISHED
        assert len(hub) == 0

    asyncio.run(main())


def test_gather_millis_is_bounded_and_a_gathering_spectator_sees_every_entry(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            too_long = stub.WatchGame(spb.WatchGameRequest(name=name, gather_millis=101))
            assert (await refused(too_long.read()))[:2] == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_REQUEST",
            )
            watch = stub.WatchGame(spb.WatchGameRequest(name=name, gather_millis=40))
            start = (await watch.read()).snapshot.sequence
            snapshot = await _state(stub, name)
            for _ in range(6):
                decision = snapshot.view.decision
                reply = await stub.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name,
                        sequence=snapshot.sequence,
                        request_id=f"g{snapshot.sequence}",
                        action=decision.options[0],
                    ),
                    metadata=auth(tokens[decision.player]),
                )
                snapshot = await _state(stub, name)
                assert snapshot.sequence == reply.entry.sequence
            seen: list[int] = []
            while len(seen) < 6:
                message = await watch.read()
                seen += [entry.sequence for entry in message.entries]
            assert seen == list(range(start + 1, start + 7))
            watch.cancel()

    asyncio.run(main())


def test_a_spectator_that_does_not_say_gathers_for_the_servers_default(tmp_path: Path) -> None:
    """gather_millis left out: a spectator gathers for the server's spectator
    default (so many spectators cost few messages), a seat gets each entry at
    once, and a spectator that says 0 at once too."""

    async def main() -> None:
        clients = ClientLimits(games_per_minute=0, watches_per_client=0, spectator_gather_millis=70)
        async with running(tmp_path, clients=clients) as (server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            seat = next(iter(tokens.values()))
            watches = [
                stub.WatchGame(spb.WatchGameRequest(name=name)),
                stub.WatchGame(spb.WatchGameRequest(name=name, gather_millis=0)),
                stub.WatchGame(spb.WatchGameRequest(name=name), metadata=auth(seat)),
            ]
            for watch in watches:
                assert (await watch.read()).snapshot.sequence >= 0
            game = await server.registry.find(name)
            assert sorted((w.gather, w.paced) for w in game.hub._watchers) == [
                (0.0, False),
                (0.0, False),
                (0.07, True),
            ]
            for watch in watches:
                watch.cancel()

    asyncio.run(main())
