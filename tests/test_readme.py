"""The README's first lines and its engine example stay true."""

from __future__ import annotations

import re
from pathlib import Path

from engine import Game

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_commands() -> None:
    text = README.read_text("utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["make run", "make test"]
    makefile = (README.parent / "Makefile").read_text("utf-8")
    assert re.search(r"^run:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (README.parent / ".ci" / "run").read_text("utf-8")


def test_readme_engine_example_runs() -> None:
    text = README.read_text("utf-8")
    example = re.search(r"## The engine.*?```python\n(.*?)```", text, re.S)
    assert example is not None
    namespace: dict[str, object] = {}
    exec(compile(example.group(1), "README.md", "exec"), namespace)
    game = namespace["game"]
    assert isinstance(game, Game) and game.over
