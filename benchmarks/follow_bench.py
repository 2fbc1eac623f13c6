"""What does a browser that follows a whole 4-bot game cost the server and the gateway?

Starts ``python -m server`` (bots at full speed) and ``python -m webclient``
in front of it as two processes of the tree ``--tree`` (default: this one),
then plays ``--games`` games whose four seats are bots, twice: once followed
by nobody, once by ``--browsers`` clients that follow each game's event stream
from its first entry as the game page does (``GET /api/v1/games/ID/events``,
and, for an entry that comes without the board after it, ``GET
/api/v1/games/ID?at_sequence=N``: what the page did before entries carried
their boards). Prints the CPU seconds of the server and the gateway processes
(``/proc``, user + system) for each run, and their difference per entry and
browser, times 125 entries: the cost of one browser following one
whole game.

    python benchmarks/follow_bench.py                      # this tree
    python benchmarks/follow_bench.py --tree /work/main    # another checkout (before)
    python benchmarks/follow_bench.py --games 10 --browsers 8
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_bench import _cpu_seconds  # noqa: E402
from tests.launch import launch  # noqa: E402

#: Entries of the game the figures are given for (the length of a typical 4-bot game).
GAME = 125

COLOURS = ["COLOUR_YELLOW", "COLOUR_RED", "COLOUR_GREEN", "COLOUR_BLUE"]


def _start(tree: Path, args: list[str], log: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m …`` of ``tree`` (its own virtualenv if it has one), and its port.

    The port is found from the process's sockets, so that an older checkout whose
    gateway has no ``--port-file`` can be measured too.
    """
    started = launch(
        args[1:],
        log.parent / args[0],
        module=args[0],
        tree=tree,
        port_file=False,
        env={"TONGIAKI_LOG_LEVEL": "WARNING"},
    )
    return started.process, started.port


class Client:
    """A small JSON client of the gateway."""

    def __init__(self, base: str) -> None:
        self.base = base
        #: at_sequence requests made.
        self.past = 0
        self._lock = threading.Lock()

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read())

    def bots_game(self) -> str:
        """A new game of four random bots (it starts at once)."""
        bots = [{"colour": c, "level": "BOT_LEVEL_RANDOM"} for c in COLOURS]
        answer = self.call("POST", "/api/v1/games", {"seats": COLOURS, "settings": {"bots": bots}})
        return str(answer["game"]["name"]).split("/")[1]

    def finished(self, game: str) -> int:
        """Wait until ``game`` is over; its last sequence."""
        while True:
            snapshot = self.call("GET", f"/api/v1/games/{game}")["snapshot"]
            if snapshot["game"]["state"] == "GAME_STATE_FINISHED":
                return int(snapshot["sequence"])
            time.sleep(0.2)

    def follow(self, game: str) -> int:
        """Follow ``game``'s event stream from its first entry to its end, as the
        game page does; how many entries came."""
        entries = 0
        latest = -1
        url = f"{self.base}/api/v1/games/{game}/events?after_sequence=0"
        with urllib.request.urlopen(url, timeout=120) as stream:
            event, data = "", ""
            for raw in stream:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and event:
                    if event == "end":
                        return entries
                    message = json.loads(data)
                    if event == "snapshot":
                        latest = int(message["sequence"])
                    elif event == "entry":
                        entries += 1
                        sequence = int(message["sequence"])
                        if "snapshot" in message:
                            latest = sequence
                        elif latest != sequence:
                            self.call("GET", f"/api/v1/games/{game}?at_sequence={sequence}")
                            with self._lock:
                                self.past += 1
                    event, data = "", ""
        return entries


def _follow(client: Client, game: str, counts: list[int]) -> None:
    counts.append(client.follow(game))


def run(client: Client, games: int, browsers: int) -> tuple[int, int]:
    """Play ``games`` bots' games one after the other, each followed by ``browsers``
    clients; the entries played and the entries the browsers received."""
    played = received = 0
    for _ in range(games):
        game = client.bots_game()
        counts: list[int] = []
        followers = [
            threading.Thread(target=_follow, args=(client, game, counts)) for _ in range(browsers)
        ]
        for follower in followers:
            follower.start()
        played += client.finished(game)
        for follower in followers:
            follower.join()
        received += sum(counts)
    return played, received


def behind(client: Client, games: int, browsers: int) -> tuple[int, int]:
    """Play ``games`` bots' games, then let ``browsers`` clients follow each from its
    first entry (its stream comes as one batch); the entries played and received."""
    played = received = 0
    for _ in range(games):
        game = client.bots_game()
        played += client.finished(game)
        counts: list[int] = []
        followers = [
            threading.Thread(target=_follow, args=(client, game, counts)) for _ in range(browsers)
        ]
        for follower in followers:
            follower.start()
        for follower in followers:
            follower.join()
        received += sum(counts)
    return played, received


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run")
    parser.add_argument("--games", type=int, default=3, help="games per run")
    parser.add_argument("--browsers", type=int, default=4, help="browsers following each game")
    args = parser.parse_args()
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        server, port = _start(
            tree,
            [
                "server",
                "--host",
                "127.0.0.1",
                "--data-dir",
                str(data),
                "--log-level",
                "WARNING",
                "--games-per-minute",
                "0",
                "--watches-per-client",
                "0",
                "--bot-pace",
                "0",
            ],
            data / "server.log",
        )
        gateway, web = _start(
            tree,
            ["webclient", "--server", f"127.0.0.1:{port}"],
            data / "gateway.log",
        )
        try:
            client = Client(f"http://127.0.0.1:{web}")
            run(client, 1, 1)  # warm up: imports, caches, the bot workers
            print(f"tree {tree}: {args.games} games of 4 random bots")
            print(
                f"{'browsers':>8} {'entries':>8} {'received':>9} {'at_seq':>7}"
                f" {'server s':>9} {'gateway s':>9}"
            )
            figures: dict[int, tuple[tuple[float, float], int]] = {}
            for browsers in (0, args.browsers):
                client.past = 0
                cpu = _cpu_seconds(server.pid), _cpu_seconds(gateway.pid)
                played, received = run(client, args.games, browsers)
                used = _cpu_seconds(server.pid) - cpu[0], _cpu_seconds(gateway.pid) - cpu[1]
                figures[browsers] = (used, played)
                print(
                    f"{browsers:>8} {played:>8} {received:>9} {client.past:>7}"
                    f" {used[0]:>9.3f} {used[1]:>9.3f}"
                )
            # Per entry played, so that games of different lengths compare.
            (alone, quiet), (followed, busy) = figures[0], figures[args.browsers]
            per = [(followed[i] / busy - alone[i] / quiet) / args.browsers for i in range(2)]
            whole = [p * GAME * 1000 for p in per]
            print(
                f"per browser following a whole game ({GAME:.0f} entries): server"
                f" {whole[0]:.1f} ms, gateway {whole[1]:.1f} ms, together {sum(whole):.1f} ms CPU"
            )
            game = [alone[i] / quiet * GAME * 1000 for i in range(2)]
            print(
                f"the game itself, followed by nobody: server {game[0]:.1f} ms,"
                f" gateway {game[1]:.1f} ms CPU"
            )
            print(f"{args.browsers} browsers following finished games from their first entry")
            print(f"{'entries':>8} {'at_seq':>7} {'server s':>9} {'gateway s':>9}")
            client.past = 0
            cpu = _cpu_seconds(server.pid), _cpu_seconds(gateway.pid)
            played, received = behind(client, args.games, args.browsers)
            used = _cpu_seconds(server.pid) - cpu[0], _cpu_seconds(gateway.pid) - cpu[1]
            # The games were played GAMEwhile: take off their cost, measured above.
            own = [alone[i] / quiet * played for i in range(2)]
            used = used[0] - own[0], used[1] - own[1]
            print(f"{played:>8} {client.past:>7} {used[0]:>9.3f} {used[1]:>9.3f}")
            whole = [used[i] / played / args.browsers * GAME * 1000 for i in range(2)]
            print(
                f"per browser catching up with a whole game ({GAME:.0f} entries): server"
                f" {whole[0]:.1f} ms, gateway {whole[1]:.1f} ms, together {sum(whole):.1f} ms CPU"
            )
        finally:
            for process in (gateway, server):
                process.terminate()
                process.wait(30)


if __name__ == "__main__":
    main()
