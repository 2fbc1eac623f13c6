"""How often should a game keep a checkpoint for GetGame ``at_sequence``?

Plays ``--games`` games of four random bots on an in-process server (SQLite in
a temporary folder), then, for each checkpoint spacing K of ``--every``, builds
the game as the registry holds it and answers ``at_sequence`` for every entry
of it as GetGame does (the checkpoint before it, at most K entries read from
the store, the spectator's snapshot encoded). Prints the CPU per answer
(median and worst), the entries read at most, and the memory the checkpoints
of one game hold; K=0 is the whole log replayed, as before checkpoints.

    python benchmarks/checkpoint_bench.py
    python benchmarks/checkpoint_bench.py --games 10 --every 4 8 16 32 64
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from server.app import Config, start  # noqa: E402
from server.game.authority import Authority, Limits  # noqa: E402
from server.game.hooks import Hooks  # noqa: E402
from server.rpc import codec as convert  # noqa: E402
from server.rpc.limits import ClientLimits  # noqa: E402
from server.storage.base import Store  # noqa: E402
from tongiaki.v1 import game_pb2 as pb  # noqa: E402
from tongiaki.v1 import game_service_pb2 as spb  # noqa: E402
from tongiaki.v1 import game_service_pb2_grpc as rpc  # noqa: E402

COLOURS = [pb.COLOUR_YELLOW, pb.COLOUR_RED, pb.COLOUR_GREEN, pb.COLOUR_BLUE]


async def _past(game: Authority, store: Store, limits: Limits, at: int) -> tuple[bytes, int]:
    """GetGame at_sequence's work (see Registry.past): the answer and entries read."""
    checkpoint = game.checkpoint(at)
    start = checkpoint.sequence if checkpoint is not None else 0
    entries = await store.entries(game.id, start, at - start) if at > start else []
    past = Authority.rebuilt(game.setup, store, limits, checkpoint, entries, codec=convert)
    return convert.snapshot_to_proto(*past.latest(None)).SerializeToString(), len(entries)


async def main(games: int, spacings: list[int]) -> None:
    with tempfile.TemporaryDirectory() as data:
        server = await start(
            Config(
                host="127.0.0.1",
                port=0,
                data_dir=Path(data),
                clients=ClientLimits(games_per_minute=0, watches_per_client=0),
            )
        )
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = rpc.GameServiceStub(channel)
                names = []
                for _ in range(games):
                    bots = [pb.BotSeat(colour=c, level=pb.BOT_LEVEL_RANDOM) for c in COLOURS]
                    created = await stub.CreateGame(
                        spb.CreateGameRequest(seats=COLOURS, settings=pb.GameSettings(bots=bots))
                    )
                    names.append(created.game.name)
                    async for _ in stub.WatchGame(spb.WatchGameRequest(name=created.game.name)):
                        pass
            store = server.store
            print(f"{games} games of 4 random bots")
            print(f"{'K':>4} {'median ms':>10} {'worst ms':>9} {'read at most':>13} {'kept KB':>8}")
            for every in spacings:
                limits = Limits(checkpoint_every=every)
                times: list[float] = []
                most = 0
                kept = 0
                for name in names:
                    stored = await store.load(name.split("/")[1])
                    assert stored is not None
                    game = Authority(stored, store, limits, Hooks(convert), owner=False)
                    kept += len(pickle.dumps(game._checkpoints))
                    for at in range(game.sequence + 1):
                        began = time.process_time()
                        _, read = await _past(game, store, limits, at)
                        times.append(time.process_time() - began)
                        most = max(most, read)
                print(
                    f"{every:>4} {statistics.median(times) * 1000:>10.2f}"
                    f" {max(times) * 1000:>9.2f} {most:>13} {kept / games / 1024:>8.0f}"
                )
        finally:
            await server.stop(0.5)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--every", type=int, nargs="+", default=[0, 4, 8, 16, 32, 64])
    args = parser.parse_args()
    asyncio.run(main(args.games, args.every))
