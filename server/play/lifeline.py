"""Worker processes that end with the process that started them, however it ends.

A bot worker is a child of the node's process. If the node is killed
(SIGKILL included, where nothing of it runs any more) its workers must not
live on: on Linux the kernel sends them SIGKILL when their parent dies
(``prctl(PR_SET_PDEATHSIG)``), and everywhere a thread of the worker looks
at its parent twice a second and ends the worker once it is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

#: prctl's option that names the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1
#: Seconds between a worker's looks at its parent.
WATCH_EVERY = 0.5


def _die_with_parent() -> bool:
    """Ask the kernel for SIGKILL when the parent dies; whether it took the request."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(1)


def tie_to_parent(parent: int) -> None:
    """Make this process end when ``parent`` (its parent's pid when it was started) ends."""
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="lifeline", daemon=True).start()


def worker_start(parent: int, niceness: int) -> None:
    """A worker's initializer: tied to ``parent``, and at a lower priority (``niceness``)."""
    tie_to_parent(parent)
    if niceness:
        os.nice(niceness)
