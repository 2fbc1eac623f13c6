"""Start ``python -m server`` (or the gateway) as a process of its own on a free port.

The one launcher of the tests and the benchmarks: the server is asked for
port 0 and writes the port it got to ``--port-file`` once it listens, so
nothing races for a port and nothing parses logs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Launched:
    """A started server process, its port and its log."""

    process: subprocess.Popen[bytes]
    log: Path
    #: Where it writes its port (None: found from the sockets it listens on).
    port_file: Path | None
    _out: IO[bytes] = field(repr=False)
    #: The port it listens on (0 until :meth:`wait_started` has seen it).
    port: int = 0

    def wait_started(self, timeout: float = 60.0) -> Launched:
        """Wait until it listens (its port in the port file, or without one the port it
        listens on); raise with its log if it ended first or did not start in
        ``timeout`` seconds (a busy machine may take many)."""
        deadline = time.monotonic() + timeout
        while not self.port:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"{self.process.args!r} did not start:\n" + self.log.read_text())
            time.sleep(0.05)
            if self.port_file is None:
                self.port = listening_port(self.pid) or 0
            elif self.port_file.exists() and self.port_file.read_text().strip():
                self.port = int(self.port_file.read_text())
        return self

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``, for a gRPC channel."""
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (SIGKILL: it dies at once) and wait for the process to end."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait()
        self._out.close()

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM, as an operator stops it; SIGKILL if it has not ended in ``timeout``."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._out.close()
        return self.process.returncode


def launch(
    args: list[str],
    folder: Path,
    *,
    module: str = "server",
    tree: Path = ROOT,
    env: dict[str, str] | None = None,
    python_args: Sequence[str] = (),
    port: int = 0,
    port_file: bool = True,
    wait: bool = True,
    timeout: float = 60.0,
) -> Launched:
    """``python [PYTHON_ARGS] -m MODULE ARGS --port PORT --port-file FOLDER/port`` of
    ``tree`` (``port`` 0: a free one).

    Its output goes to ``FOLDER/log``. Unless ``wait`` is False it returns once it
    listens (:meth:`Launched.wait_started`). ``tree`` may be another checkout: its
    own virtualenv runs it if it has one; ``port_file=False`` leaves out
    ``--port-file`` (for a checkout whose program has no such flag) and finds the
    port it listens on instead.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / "port"
    written.unlink(missing_ok=True)
    log = folder / "log"
    python = tree / ".venv" / "bin" / "python"
    out = log.open("ab")
    process = subprocess.Popen(
        [
            str(python if tree != ROOT and python.exists() else sys.executable),
            *python_args,
            "-m",
            module,
            *args,
            *("--port", str(port)),
            *(("--port-file", str(written)) if port_file else ()),
        ],
        cwd=tree,
        stdout=out,
        stderr=out,
        env={**os.environ, "PYTHONPATH": str(tree), **(env or {})},
    )
    launched = Launched(process, log, written if port_file else None, out)
    return launched.wait_started(timeout) if wait else launched


def listening_port(pid: int) -> int | None:
    """The TCP port the process ``pid`` listens on (from /proc), if any yet."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if parts[3] == "0A" and parts[9] in inodes:  # LISTEN
                    return int(parts[1].split(":")[1], 16)
    return None
