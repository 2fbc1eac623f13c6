"""Imports point one way: each package imports only what its docstring allows.

The rules below are those of ``docs/architecture.md`` and of each package's
opening docstring; an arrow that points back up, a package reaching past its
neighbours into a transport it must not know (grpc, protobuf), or a cycle of
imports between modules fails the build.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bots import LEVELS
from engine import COLOURS
from engine import Reason as EngineReason
from tongiaki import reasons, vocabulary

ROOT = Path(__file__).resolve().parent.parent

#: The transports that only the contract, the node and the gRPC edge may know.
WIRE = ("grpc", "grpc_status", "grpc_health", "grpc_reflection", "google", "tongiaki.v1")


@dataclass(frozen=True)
class Layer:
    """A package and the packages of ours (by module prefix) it may import."""

    name: str
    may: tuple[str, ...]
    #: Third-party modules it must not import (by prefix).
    never: tuple[str, ...] = ()


#: From the bottom up. A module belongs to the longest name that prefixes it.
LAYERS = (
    Layer("engine", ()),
    Layer("bots", ("engine",)),
    Layer("tongiaki", ()),
    Layer("server.storage", (), WIRE),
    Layer("server.game", ("engine", "server.storage", "tongiaki.reasons"), WIRE),
    Layer(
        "server.play", ("engine", "bots", "server.storage", "server.game", "tongiaki.reasons"), WIRE
    ),
    Layer("server.node", ("engine", "server.storage", "server.game", "server.play", "tongiaki")),
    Layer(
        "server.rpc",
        ("engine", "tongiaki", "server.storage", "server.game", "server.play", "server.node"),
    ),
    Layer("server", ("engine", "bots", "tongiaki", "server")),
    Layer("webclient", ("tongiaki",), ("engine", "bots")),
)

#: Imports allowed against the rules above, each with its reason.
EXCEPTIONS = {
    # The launcher of the whole thing (``python -m webclient --nodes 3``) starts a
    # private PostgreSQL for the nodes it starts; the gateway itself never imports
    # the server.
    ("webclient.run", "server.storage.pgcluster"),
}

OURS = ("engine", "bots", "tongiaki", "server", "webclient")
PACKAGES = ("engine", "bots", "tongiaki", "server", "webclient")


@dataclass(frozen=True)
class Import:
    """One import statement of a module."""

    module: str
    target: str
    line: int
    #: Inside ``if TYPE_CHECKING:`` (for annotations only, never run).
    typing_only: bool


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _typing_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, typing_only: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        inner = typing_only or _typing_block(child)
        yield child, inner
        yield from _walk(child, inner)


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every absolute import of the module at ``path`` (``root`` is the import root)."""
    module = _module_name(path, root)
    found = []
    for node, typing_only in _walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from a.b import c`` may import the module a.b.c: count it as such.
            targets = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [Import(module, t, node.lineno, typing_only) for t in targets]
    return found


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> Layer | None:
    """The layer ``module`` belongs to (the longest matching name)."""
    matching = [layer for layer in LAYERS if _under(module, layer.name)]
    return max(matching, key=lambda layer: len(layer.name)) if matching else None


def modules(root: Path) -> dict[str, Path]:
    """Every module of our packages under ``root`` (generated code left out)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "gen" in path.parts or path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
                continue
            found[_module_name(path, root)] = path
    return found


def violations(root: Path) -> list[str]:
    """Imports that break a layer's rules, as readable lines."""
    bad = []
    for module, path in modules(root).items():
        layer = layer_of(module)
        assert layer is not None, module
        for found in imports_of(path, root):
            target = found.target
            where = f"{path.relative_to(root)}:{found.line}: {module} imports {target}"
            if any(_under(target, t) for m, t in EXCEPTIONS if m == module):
                continue
            if any(_under(target, never) for never in layer.never):
                bad.append(f"{where} ({layer.name} never imports {target.split('.')[0]})")
            elif (
                target.split(".")[0] in OURS
                and layer_of(target) is not layer
                and not any(_under(target, allowed) for allowed in layer.may)
            ):
                bad.append(f"{where} (an arrow back: {layer.name} may import {layer.may})")
    return bad


def engine_violations(root: Path) -> list[str]:
    """Imports of the engine outside the standard library and the engine itself."""
    bad = []
    for module, path in modules(root).items():
        if not _under(module, "engine"):
            continue
        for found in imports_of(path, root):
            top = found.target.split(".")[0]
            if top != "engine" and top not in sys.stdlib_module_names:
                bad.append(f"{path.relative_to(root)}:{found.line}: {found.target}")
    return bad


def cycles(root: Path) -> list[list[str]]:
    """Cycles of imports between modules that run (``TYPE_CHECKING`` imports left out)."""
    known = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        for found in imports_of(path, root):
            if found.typing_only:
                continue
            target = found.target
            while target and target not in known:
                target = target.rpartition(".")[0]
            # A package's __init__ importing its own modules is how packages are made.
            if target and target != module and not _under(target, module):
                graph[module].add(target)
    found_cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found_cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found_cycles


def test_every_import_points_down() -> None:
    assert violations(ROOT) == []


def test_the_engine_imports_only_the_standard_library() -> None:
    assert engine_violations(ROOT) == []


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert cycles(ROOT) == []


def test_every_module_has_its_layer() -> None:
    assert [m for m in modules(ROOT) if layer_of(m) is None] == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
    return tmp_path


def test_the_checks_find_an_arrow_back_a_wire_import_and_a_cycle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "server/__init__.py": "",
            "server/game/__init__.py": "",
            "server/game/authority.py": "from server.rpc import codec\nimport grpc\n",
            "server/game/hooks.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from server.game.authority import Authority\n"
            ),
            "server/rpc/__init__.py": "",
            "server/rpc/codec.py": "from server.rpc import service\n",
            "server/rpc/service.py": "from server.rpc.codec import frame\n",
            "webclient/__init__.py": "",
            "webclient/app.py": "from server.game import authority\n",
            "engine/__init__.py": "import numpy\n",
        },
    )
    found = violations(root)
    assert any("server.game.authority imports server.rpc.codec" in line for line in found)
    assert any("server.game never imports grpc" in line for line in found)
    assert any("webclient.app imports server.game.authority" in line for line in found)
    assert engine_violations(root) == ["engine/__init__.py:1: numpy"]
    assert cycles(root) == [["server.rpc.codec", "server.rpc.service", "server.rpc.codec"]]


def _js_list(script: str, name: str) -> list[str]:
    text = (ROOT / "webclient" / "static" / "js" / script).read_text()
    found = re.search(rf"export const {name} = \[([^\]]*)\];", text)
    assert found is not None, (script, name)
    return re.findall(r'"([^"]+)"', found.group(1))


def test_the_vocabularies_are_the_contracts() -> None:
    """Seat colours and bot levels are declared by the contract; the engine's
    colours, the bots' levels and the browser's lists are the same names in the
    same order (the browser, having no build step, keeps a copy that this checks)."""
    assert COLOURS == vocabulary.COLOURS
    assert tuple(LEVELS) == vocabulary.BOT_LEVELS
    assert tuple(_js_list("ships.js", "COLOURS")) == vocabulary.COLOURS
    assert tuple(_js_list("text.js", "BOT_LEVELS")) == vocabulary.BOT_LEVELS


def test_the_contracts_reasons_hold_the_engines() -> None:
    """The contract lists every reason a client may meet: the engine's among them,
    under the same names, each with a gRPC status."""
    engine_reasons = {reason.value for reason in EngineReason}
    assert engine_reasons <= {reason.value for reason in reasons.Reason}
    assert set(reasons.STATUS) == set(reasons.Reason)
