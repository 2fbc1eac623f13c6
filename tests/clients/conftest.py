"""The client tests use the server tests' harness (a real server on a free port)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
