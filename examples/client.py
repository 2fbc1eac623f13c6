"""A seat played over gRPC with the contract's Python client (tongiaki.client).

    python examples/client.py [--server HOST:PORT] [--bot greedy] [--seed 7]

Creates a game of yellow (this script) against a server-side bot on red, takes
yellow, starts it, and plays yellow by watching the game: whenever the decision
is yellow's, it chooses one of the offered options at random. It prints one JSON
line per entry it sees and, at the end, the ranking. The watch resumes by itself
if the connection drops; the decisions go with request ids, so a retry never
plays twice.
"""

from __future__ import annotations

import argparse
import json
import os
import random

from google.protobuf import json_format

from tongiaki.client import Client, request_id
from tongiaki.v1 import game_pb2 as pb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("TONGIAKI_SERVER", "localhost:50051"))
    parser.add_argument("--bot", default="greedy", help="random, greedy, strong or expert")
    parser.add_argument("--seed", type=int, default=7, help="for this seat's choices")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    client = Client(args.server)
    try:
        bot = pb.BotSeat(
            colour=pb.COLOUR_RED, level=pb.BotLevel.Value(f"BOT_LEVEL_{args.bot.upper()}")
        )
        game = client.create(["yellow", "red"], pb.GameSettings(bots=[bot])).game.name
        token = client.join(game, "yellow", display_name="Script").seat_token
        client.start(game, token)
        for message in client.watch(game, token=token, include_latest=True):
            for entry in message.entries:
                print(json.dumps({"sequence": entry.sequence, "entry": entry.WhichOneof("change")}))
            latest = message.latest if message.HasField("latest") else message.snapshot
            view = latest.view
            if view.HasField("decision") and view.decision.player == pb.COLOUR_YELLOW:
                option = rng.choice(view.decision.options)
                client.submit(game, token, option, latest.sequence, request_id())
            elif latest.game.state == pb.GAME_STATE_FINISHED:
                results = [json_format.MessageToDict(r) for r in latest.game.results]
                print(json.dumps({"done": True, "game": game, "results": results}))
                return
    finally:
        client.close()


if __name__ == "__main__":
    main()
