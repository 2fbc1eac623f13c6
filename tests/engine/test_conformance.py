"""Every conformance vector's trace, reproduced byte for byte."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine import Game, canonical
from engine.cli import replay

from .helpers import load, vectors


@pytest.mark.parametrize("path", vectors(), ids=lambda p: p.stem)
def test_trace_is_reproduced_byte_for_byte(path: Path) -> None:
    vector = load(path)
    out = io.StringIO()
    assert replay(vector["record"], out) == 0
    expected = "".join(canonical(snapshot) + "\n" for snapshot in vector["trace"])
    assert out.getvalue() == expected


@pytest.mark.parametrize("path", vectors(), ids=lambda p: p.stem)
def test_unchecked_replay_reaches_the_same_end(path: Path) -> None:
    vector = load(path)
    game = Game.from_record(vector["record"], checked=False)
    assert canonical(game.snapshot()) == canonical(vector["trace"][-1])


def test_the_vectors_are_all_here() -> None:
    names = [p.stem for p in vectors()]
    assert len(names) == 35
    assert sum(n.startswith("random-") for n in names) == 24
