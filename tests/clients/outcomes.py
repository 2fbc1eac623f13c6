"""A decision whose outcome is unknown, for every client: sent again with its request
id until the server answers, and applied once.

Each client runs a small script of its own (``SCRIPT ADDRESS GAME TOKENS``:
the tokens as JSON, colour name to token) that makes two decisions. For each it
reads the game, prints ``{"ready": SEQUENCE}``, waits for a line on its input,
submits the first option through the client's own retrying call (a deadline of
10 s, then of 1 s) and prints ``{"retry": CODE}`` for every refusal it sends
again after and ``{"entry": SEQUENCE}`` for the answer.

The test breaks the server in between, waiting on what the script prints: for
the first decision the server is killed, and started again on its port (with
its data) once the script was refused (UNAVAILABLE, the channel's own tries
spent); for the second it is paused (SIGSTOP) until the script's call ran past
its deadline (DEADLINE_EXCEEDED), then let go. Each decision must be answered
with the entry right after it, and the log must hold it once.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.launch import ROOT, launch
from tests.pgcluster import free_port
from tongiaki.client import Client
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

#: The refusals a client sends its decisions again after, in turn: UNAVAILABLE (the
#: server down), then DEADLINE_EXCEEDED (the server paused), as gRPC's numbers.
RETRIED = [14, 4]

#: Seconds to wait for any one thing the script prints (a busy machine is slow).
PATIENCE = 120.0


async def _line(process: asyncio.subprocess.Process) -> dict[str, Any]:
    assert process.stdout is not None
    raw = await asyncio.wait_for(process.stdout.readline(), PATIENCE)
    if not raw:
        assert process.stderr is not None
        await process.wait()
        error = (await process.stderr.read()).decode()
        raise AssertionError(f"the script ended ({process.returncode}): {error}")
    found: dict[str, Any] = json.loads(raw)
    return found


async def _until(process: asyncio.subprocess.Process, key: str) -> dict[str, Any]:
    while True:
        line = await _line(process)
        if key in line:
            return line


async def _go(process: asyncio.subprocess.Process) -> None:
    assert process.stdin is not None
    process.stdin.write(b"go\n")
    await process.stdin.drain()


def check(
    command: Sequence[str], tmp_path: Path, *, extra: Sequence[str] = (), cwd: Path | None = None
) -> list[int]:
    """Run the scenario with ``command`` (the script and its interpreter; ``extra``:
    arguments after the script's three); the codes of the refusals it sent again
    after, as numbers."""
    port = free_port()
    args = ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data")]
    server = launch(args, tmp_path / "first", port=port)
    address = f"127.0.0.1:{port}"
    client = Client(address)
    retried: list[int] = []
    try:
        name = client.create(["red", "blue"]).game.name
        tokens = {}
        for seat in ("red", "blue"):
            joined = client.join(name, seat)
            tokens[pb.Colour.Name(joined.colour)] = joined.seat_token
        client.start(name, tokens["COLOUR_RED"])

        async def main() -> None:
            nonlocal server
            process = await asyncio.create_subprocess_exec(
                *command,
                address,
                name,
                json.dumps(tokens),
                *extra,
                cwd=cwd,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            try:
                # A server that is down: refused once the channel's tries are spent.
                ready = (await _until(process, "ready"))["ready"]
                server.kill()
                await _go(process)
                retried.append((await _until(process, "retry"))["retry"])
                server = launch(args, tmp_path / "second", port=port)
                answer = await _until(process, "entry")
                assert answer["entry"] == ready + 1
                # A server that does not answer: the call runs past its deadline, and
                # the server finds the request, sent again, when it answers again.
                ready = (await _until(process, "ready"))["ready"]
                server.process.send_signal(signal.SIGSTOP)
                await _go(process)
                retried.append((await _until(process, "retry"))["retry"])
                server.process.send_signal(signal.SIGCONT)
                answer = await _until(process, "entry")
                assert answer["entry"] == ready + 1
                assert await asyncio.wait_for(process.wait(), PATIENCE) == 0
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            # Each decision once: nothing after the second.
            got = client.call("GetGame", spb.GetGameRequest(name=name)).snapshot
            assert got.sequence == ready + 1

        asyncio.run(main())
    finally:
        client.close()
        server.process.send_signal(signal.SIGCONT)
        server.stop()
    return retried
