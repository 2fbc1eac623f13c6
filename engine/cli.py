"""Command line: replay records into traces, play random games.

    python -m engine replay RECORD.json     # the trace of CONFORMANCE.md
    python -m engine random --seats 4 --seed 7

Exit status: 0 done, 2 an invalid record, 3 an illegal action (reported on the
trace's last line), 141 the reader of the output went away (``| head``), as
for any tool stopped by SIGPIPE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .errors import ActionError, RecordError
from .game import Game, canonical
from .playout import random_game

EXIT_INVALID_RECORD = 2
EXIT_ILLEGAL_ACTION = 3
#: 128 + SIGPIPE: the status of a tool whose reader closed the pipe.
EXIT_BROKEN_PIPE = 141


def replay(record: Any, out: TextIO) -> int:
    """Write the trace of ``record`` to ``out``; return the exit status."""
    if isinstance(record, dict) and "record" in record and "seats" not in record:
        record = record["record"]  # a conformance vector
    if not isinstance(record, dict) or not isinstance(record.get("actions", []), list):
        raise RecordError("a record is an object with seats, stack and actions")
    game = Game.new(record.get("seats"), record.get("stack"))  # type: ignore[arg-type]
    out.write(canonical(game.snapshot()) + "\n")
    for step, action in enumerate(record.get("actions", [])):
        try:
            game.apply(action)
        except ActionError as error:
            out.write(canonical({"error": {"step": step, "message": error.message}}) + "\n")
            return EXIT_ILLEGAL_ACTION
        out.write(canonical(game.snapshot()) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; a closed output pipe ends it quietly."""
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (``| head``): nothing is wrong with the record.
        # Point stdout at /dev/null so the interpreter's last flush stays silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    return status


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="print the trace of a game record")
    replay_cmd.add_argument("record", help="a record (or conformance vector) file, - for stdin")
    random_cmd = commands.add_parser("random", help="play a random game and print its record")
    random_cmd.add_argument("--seats", type=int, default=4, choices=range(2, 7))
    random_cmd.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    if args.command == "random":
        game = random_game(args.seats, args.seed)
        sys.stdout.write(canonical(game.record()) + "\n")
        return 0
    try:
        if args.record == "-":
            record = json.load(sys.stdin)
        else:
            with open(args.record, encoding="utf-8") as handle:
                record = json.load(handle)
    except (OSError, ValueError) as error:
        print(f"invalid record: {error}", file=sys.stderr)
        return EXIT_INVALID_RECORD
    try:
        return replay(record, sys.stdout)
    except ValueError as error:
        print(f"invalid record: {error}", file=sys.stderr)
        return EXIT_INVALID_RECORD
    except RecordError as error:
        print(f"invalid record: {error.message}", file=sys.stderr)
        return EXIT_INVALID_RECORD


if __name__ == "__main__":
    raise SystemExit(main())
