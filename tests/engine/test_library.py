"""The engine as a library: standard library only, no server packages, a runnable example."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_plain_install_pulls_in_nothing() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["dependencies"] == []
    assert {"server", "web", "dev"} <= set(project["optional-dependencies"])


def test_the_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) - {"random", "socket", "time", "asyncio", "sqlite3"}
    for path in sorted((ROOT / "engine").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed | {"__future__"}, f"{path.name}: {name}"


def test_the_embedding_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "selfplay.py"), "--games", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("last game:")
    assert sum(int(line.split(" won ")[1].split()[0]) for line in lines[1:]) >= 3
