"""Tutorial games: a fixed, public stack with the tutorial's seats and bot; never listed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from server_harness import COLOURS, Stub, new_game, play_seat, random_chooser, refused, running

from benchmarks.tutorial_stack import shortened
from engine.playout import shuffled_stack
from server.game.tutorials import TUTORIALS
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

YELLOW, RED = pb.COLOUR_YELLOW, pb.COLOUR_RED


async def listed(stub: Stub) -> set[str]:
    """The names of every game ListGames gives, page by page (small pages)."""
    names: set[str] = set()
    token = ""
    while True:
        page = await stub.ListGames(spb.ListGamesRequest(page_size=2, page_token=token))
        names.update(g.name for g in page.games)
        token = page.next_page_token
        if not token:
            return names


async def tutorial_game(stub: Stub) -> spb.CreateGameResponse:
    created: spb.CreateGameResponse = await stub.CreateGame(
        spb.CreateGameRequest(
            settings=pb.GameSettings(tutorial="first_game", display_name="Tutorial")
        )
    )
    return created


def test_a_tutorial_is_played_on_its_stack_against_its_bot_and_never_listed(
    tmp_path: Path,
) -> None:
    tutorial = TUTORIALS["first_game"]

    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            real, _tokens = await new_game(stub, 2, start_game=False)
            created = await tutorial_game(stub)
            game = created.game
            assert [s.colour for s in game.seats] == [YELLOW, RED]
            assert [(b.colour, b.level) for b in game.settings.bots] == [(RED, pb.BOT_LEVEL_RANDOM)]
            assert game.settings.tutorial == "first_game"
            assert game.settings.display_name == "Tutorial"
            assert game.state == pb.GAME_STATE_OPEN
            for _ in range(3):  # other games around it, on both sides of small pages
                await new_game(stub, 2, start_game=False)
            assert game.name not in await listed(stub)
            assert real in await listed(stub)
            # The person sits: the game starts by itself and is played to the end.
            joined = await stub.JoinGame(spb.JoinGameRequest(name=game.name))
            assert joined.colour == YELLOW
            seen = await asyncio.wait_for(
                play_seat(stub, game.name, YELLOW, joined.seat_token, random_chooser(3)),
                timeout=300,
            )
            assert seen.decision is None
            record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=game.name))).record
            assert list(record.stack) == list(tutorial.stack)
            assert game.name not in await listed(stub)
            finished = await stub.ListGames(spb.ListGamesRequest(state=pb.GAME_STATE_FINISHED))
            assert game.name not in {g.name for g in finished.games}
            # A rematch repeats the tutorial's seats and settings: another tutorial game.
            again = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, RED], settings=game.settings)
            )
            assert again.game.settings == game.settings
            assert again.game.name != game.name
            real_record = await stub.GetGame(spb.GetGameRequest(name=real))
            assert real_record.snapshot.game.settings.tutorial == ""

    asyncio.run(main())


def test_a_tutorial_takes_no_seats_or_settings_and_must_exist(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            cases = [
                (
                    spb.CreateGameRequest(settings=pb.GameSettings(tutorial="nope")),
                    "settings.tutorial",
                ),
                (
                    spb.CreateGameRequest(
                        seats=COLOURS[:2], settings=pb.GameSettings(tutorial="first_game")
                    ),
                    "seats",
                ),
                (
                    spb.CreateGameRequest(
                        settings=pb.GameSettings(
                            tutorial="first_game",
                            bots=[pb.BotSeat(colour=RED, level=pb.BOT_LEVEL_STRONG)],
                        )
                    ),
                    "settings.bots",
                ),
                (
                    spb.CreateGameRequest(
                        settings=pb.GameSettings(
                            tutorial="first_game", bots=[pb.BotSeat(colour=YELLOW)]
                        )
                    ),
                    "settings.bots",
                ),
                (
                    spb.CreateGameRequest(
                        settings=pb.GameSettings(tutorial="first_game", turn_timeout_seconds=5)
                    ),
                    "settings.turn_timeout_seconds",
                ),
            ]
            for request, field in cases:
                code, reason, metadata = await refused(stub.CreateGame(request))
                assert (code, reason, metadata["field"]) == (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "INVALID_REQUEST",
                    field,
                )
            assert await listed(stub) == set()

    asyncio.run(main())


def test_the_tutorial_stack_is_the_one_the_search_chose() -> None:
    """``benchmarks/tutorial_stack.py`` found seed 438: its shuffle, shortened (islands
    after the eighth tile first), is the tutorial's stack."""
    assert TUTORIALS["first_game"].stack == tuple(shortened(shuffled_stack(438), 8))
