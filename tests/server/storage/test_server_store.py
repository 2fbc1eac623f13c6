"""Games live in the store: restarts read nothing, lists come from indexes, history from the log."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
import time
from pathlib import Path

import grpc
import pytest
from server_harness import (
    COLOURS,
    auth,
    error_info,
    new_game,
    play_seat,
    random_chooser,
    refused,
    running,
)

from engine import Game
from server.rpc import codec as convert
from server.storage.sqlite import SCHEMA_VERSION
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

FIXTURE = Path(__file__).parent / "fixtures" / "schema1"


async def _bots_game(stub: object, seats: int = 2) -> str:
    created = await stub.CreateGame(  # type: ignore[attr-defined]
        spb.CreateGameRequest(
            seats=COLOURS[:seats],
            settings=pb.GameSettings(
                bots=[pb.BotSeat(colour=c, level=pb.BOT_LEVEL_RANDOM) for c in COLOURS[:seats]]
            ),
        )
    )
    name: str = created.game.name
    async for _ in stub.WatchGame(spb.WatchGameRequest(name=name)):  # type: ignore[attr-defined]
        pass  # until the game is over
    return name


def test_a_restart_reads_no_stored_game(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _channel):
            finished = [await _bots_game(stub) for _ in range(3)]
            opened = []
            for i in range(1200):
                created = await stub.CreateGame(
                    spb.CreateGameRequest(
                        seats=COLOURS[:3], settings=pb.GameSettings(display_name=f"table {i}")
                    )
                )
                if i % 2:
                    await stub.JoinGame(
                        spb.JoinGameRequest(name=created.game.name, display_name=f"p{i}")
                    )
                opened.append(created.game.name)
            active, tokens = await new_game(stub, 2)
        async with running(tmp_path) as (server, stub, _channel):
            await asyncio.sleep(0.2)  # the background pass over games that need a server
            assert server.registry.loads == 0 and len(server.registry) == 0
            listed: list[pb.Game] = []
            token = ""
            while True:
                page = await stub.ListGames(spb.ListGamesRequest(page_size=500, page_token=token))
                listed.extend(page.games)
                token = page.next_page_token
                if not token:
                    break
            assert [g.name for g in listed] == [*finished, *opened, active]
            assert [g.settings.display_name for g in listed[3:8]] == [
                f"table {i}" for i in range(5)
            ]
            assert [s.display_name for s in listed[4].seats] == ["p1", "", ""]
            done = await stub.ListGames(
                spb.ListGamesRequest(state=pb.GAME_STATE_FINISHED, page_size=10)
            )
            assert [g.name for g in done.games] == finished
            assert all(len(g.results) == 2 for g in done.games)
            assert {r.rank for r in done.games[0].results} <= {1, 2}
            with_room = await stub.ListGames(spb.ListGamesRequest(open_seats=True, page_size=1000))
            assert len(with_room.games) == 1000 and with_room.next_page_token
            assert all(any(not s.occupied for s in g.seats) for g in with_room.games)
            # Lists came from the store's indexes: still no game was rebuilt.
            assert server.registry.loads == 0
            # The first request for a game rebuilds it, once.
            snapshot = (
                await stub.GetGame(
                    spb.GetGameRequest(name=active), metadata=auth(tokens[COLOURS[0]])
                )
            ).snapshot
            assert snapshot.view.viewer == COLOURS[0]
            await stub.GetGame(spb.GetGameRequest(name=active))
            assert server.registry.loads == 1
            record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=finished[0]))
            assert Game.from_record(json.loads(record.record_json)).over
            # A finished game is answered from the store and not kept.
            watched = [m async for m in stub.WatchGame(spb.WatchGameRequest(name=finished[0]))]
            assert watched[0].snapshot.game.state == pb.GAME_STATE_FINISHED
            assert server.registry.loads == 3 and len(server.registry) == 1

    asyncio.run(main())


def test_idle_games_leave_memory_and_come_back_intact(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _channel):
            server.registry.idle = 0.0
            name, tokens = await new_game(stub, 2)
            rng = random.Random(5)
            sent: list[tuple[spb.SubmitActionRequest, str, spb.SubmitActionResponse]] = []
            for _ in range(12):
                snapshot = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                decision = snapshot.view.decision
                before = server.registry.loads
                assert server.registry.evict_idle() >= 1 and len(server.registry) == 0
                request = spb.SubmitActionRequest(
                    name=name,
                    sequence=snapshot.sequence,
                    request_id=f"r{snapshot.sequence}",
                    action=rng.choice(list(decision.options)),
                )
                token = tokens[decision.player]
                reply = await stub.SubmitAction(request, metadata=auth(token))
                sent.append((request, token, reply))
                assert server.registry.loads == before + 1
            # Retries of acknowledged requests after the game was let go are no-ops that
            # answer what the first answered (request ids are rebuilt from the log).
            last = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
            for request, token, reply in sent[-3:]:
                server.registry.evict_idle()
                assert await stub.SubmitAction(request, metadata=auth(token)) == reply
            assert (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot == last

    asyncio.run(main())


def test_any_past_state_and_the_whole_log_are_public(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 3)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            record = json.loads(
                (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record_json
            )
            entries: list[pb.LogEntry] = []
            after = 0
            while True:
                page = await stub.ListGameEntries(
                    spb.ListGameEntriesRequest(name=name, after_sequence=after, page_size=40)
                )
                entries.extend(page.entries)
                after = page.entries[-1].sequence
                if not page.more:
                    break
            assert [e.sequence for e in entries] == list(range(1, page.sequence + 1))
            started = next(e.sequence for e in entries if e.HasField("game_started"))
            replay = Game.new(record["seats"], record["stack"])
            for at in [started, started + 1, started + 17, page.sequence]:
                actions = at - started
                replay = Game.from_record({**record, "actions": record["actions"][:actions]})
                past = (await stub.GetGame(spb.GetGameRequest(name=name, at_sequence=at))).snapshot
                assert past.sequence == at
                assert past.view == convert.view_to_proto(replay.view(None))
            before = (await stub.GetGame(spb.GetGameRequest(name=name, at_sequence=1))).snapshot
            assert before.game.state == pb.GAME_STATE_OPEN and not before.HasField("view")
            _, reason, _ = await refused(
                stub.GetGame(spb.GetGameRequest(name=name, at_sequence=page.sequence + 1))
            )
            assert reason == "SEQUENCE_OUT_OF_RANGE"

    asyncio.run(main())


def test_a_watch_can_carry_the_latest_snapshot(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            yellow = COLOURS[0]
            watch = stub.WatchGame(
                spb.WatchGameRequest(name=name, include_latest=True), metadata=auth(tokens[yellow])
            )
            players = asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            messages = [m async for m in watch]
            await players
            assert len(messages) > 2
            for message in messages:
                assert message.HasField("latest")
                last = message.entries[-1].sequence if message.entries else message.sequence
                if message.HasField("snapshot"):
                    last = message.snapshot.sequence
                assert message.latest.sequence == last
                assert message.latest.view.viewer == yellow
            final = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
            assert messages[-1].latest.view.result == final.view.result

    asyncio.run(main())


@pytest.mark.sqlite_only
def test_a_database_of_the_first_schema_is_upgraded_in_place(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(FIXTURE / "tongiaki.sqlite3", data / "tongiaki.sqlite3")
    known = json.loads((FIXTURE / "games.json").read_text())
    tokens = known.pop("tokens")

    async def main() -> None:
        async with running(data) as (_server, stub, _channel):
            listed = (await stub.ListGames(spb.ListGamesRequest())).games
            assert {g.name: (pb.GameState.Name(g.state), g.sequence) for g in listed} == {
                name: (game["state"], game["sequence"]) for name, game in known.items()
            }
            opened, active, finished, with_bot = known
            open_game = next(g for g in listed if g.name == opened)
            assert [s.display_name for s in open_game.seats] == ["Aroha", "", ""]
            seat = await stub.GetGame(
                spb.GetGameRequest(name=opened), metadata=auth(tokens["open"])
            )
            assert seat.snapshot.game.name == opened
            _, reason, _ = await refused(
                stub.GetGame(spb.GetGameRequest(name=active), metadata=auth(tokens["open"]))
            )
            assert reason == "TOKEN_WRONG_GAME"
            done = next(g for g in listed if g.name == finished)
            assert len(done.results) == 2
            record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=finished))
            assert Game.from_record(json.loads(record.record_json)).over
            # The game in play goes on where it stopped, with its seats' tokens.
            snapshot = (await stub.GetGame(spb.GetGameRequest(name=active))).snapshot
            decision = snapshot.view.decision
            player = pb.Colour.Name(decision.player)
            reply = await stub.SubmitAction(
                spb.SubmitActionRequest(
                    name=active,
                    sequence=snapshot.sequence,
                    request_id="after-upgrade",
                    action=decision.options[0],
                ),
                metadata=auth(tokens["active"][player]),
            )
            assert reply.entry.sequence == snapshot.sequence + 1
            bot_game = await stub.GetGame(
                spb.GetGameRequest(name=with_bot), metadata=auth(tokens["bots"])
            )
            assert bot_game.snapshot.view.viewer == pb.COLOUR_YELLOW

    asyncio.run(main())
    with sqlite3.connect(data / "tongiaki.sqlite3") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM games WHERE sequence < 0").fetchone()[0] == 0


def test_games_that_run_by_themselves_are_taken_up_at_start(tmp_path: Path) -> None:
    timeout = 3.0

    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            bots = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2],
                    settings=pb.GameSettings(
                        bots=[pb.BotSeat(colour=c, level=pb.BOT_LEVEL_STRONG) for c in COLOURS[:2]]
                    ),
                )
            )
            for _ in range(10):
                await new_game(stub, 3)  # people's games: nothing to do without them
            async for message in stub.WatchGame(spb.WatchGameRequest(name=bots.game.name)):
                if message.entries and message.entries[-1].sequence >= 6:
                    break
            # Started last, so that its clock normally runs out after the restart.
            clocked = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2],
                    settings=pb.GameSettings(
                        bots=[pb.BotSeat(colour=COLOURS[1], level=pb.BOT_LEVEL_RANDOM)],
                        turn_timeout_seconds=timeout,
                    ),
                )
            )
            joined = await stub.JoinGame(spb.JoinGameRequest(name=clocked.game.name))
            await stub.StartGame(
                spb.StartGameRequest(name=clocked.game.name), metadata=auth(joined.seat_token)
            )

        async def sequences() -> dict[str, int]:
            page = await stub.ListGames(spb.ListGamesRequest())
            return {g.name: g.sequence for g in page.games}

        async def timed_out() -> bool:
            got = await stub.GetGame(spb.GetGameRequest(name=clocked.game.name))
            reason: int = got.snapshot.game.seats[0].takeover
            return reason == pb.TAKEOVER_REASON_TIMED_OUT

        async with running(tmp_path) as (server, stub, _channel):
            before = await sequences()
            # The clock's deadline passes and the bots think on, nobody asking for
            # either game: wait (as long as a busy machine needs) until both moved.
            waited = time.monotonic() + 120
            while True:
                after = await sequences()
                moved = {name for name in after if after[name] > before[name]}
                if {bots.game.name, clocked.game.name} <= moved and await timed_out():
                    break
                assert time.monotonic() < waited, (before, after)
                await asyncio.sleep(0.1)
            # Only the two games that run by themselves were read, with no request for them.
            assert server.registry.loads == 2
            changed = {name for name in after if after[name] != before[name]}
            assert changed == {bots.game.name, clocked.game.name}

    asyncio.run(main())


def test_open_games_no_person_joined_expire(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, open_game_ttl=3600) as (server, stub, _channel):
            nobody = await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))
            bots_only_waiting = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2],
                    settings=pb.GameSettings(
                        bots=[pb.BotSeat(colour=COLOURS[0], level=pb.BOT_LEVEL_RANDOM)]
                    ),
                )
            )
            left = await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))
            token = (await stub.JoinGame(spb.JoinGameRequest(name=left.game.name))).seat_token
            await stub.LeaveGame(spb.LeaveGameRequest(name=left.game.name), metadata=auth(token))
            held = await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))
            await stub.JoinGame(spb.JoinGameRequest(name=held.game.name))
            playing, _ = await new_game(stub, 2)
            watch = stub.WatchGame(spb.WatchGameRequest(name=nobody.game.name))
            await watch.read()
            # Nothing is old enough yet.
            assert await server.registry.expire_open() == []
            server.registry.open_game_ttl = 0.0
            await asyncio.sleep(0.01)
            gone = await server.registry.expire_open()
            expired = {nobody.game.name, bots_only_waiting.game.name, left.game.name}
            assert {"games/" + g for g in gone} == expired
            for name in expired:
                _, reason, _ = await refused(stub.GetGame(spb.GetGameRequest(name=name)))
                assert reason == "GAME_NOT_FOUND"
            listed = {g.name for g in (await stub.ListGames(spb.ListGamesRequest())).games}
            assert listed == {held.game.name, playing}
            # A watcher of an expired game is told to go elsewhere, then finds nothing.
            try:
                await watch.read()
                raise AssertionError("the watch went on")
            except grpc.aio.AioRpcError as error:
                assert error_info(error)[1] == "GAME_MOVED"

    asyncio.run(main())
