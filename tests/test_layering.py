"""The house's layout holds: arrows between rooms point one way.

Imports are read from the source (every ``import``, those inside functions and under
``TYPE_CHECKING`` included), so a circle hidden in a function is found as well as one at the
top of a module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The rooms in which no module takes part in an import circle.
ROOMS_WITHOUT_CIRCLES = (
    "ansi",
    "door.commands",
    "door.engine",
    "door.net",
    "door.running",
    "door.solving",
    "door.store",
    "door.views",
    "door.visit",
    "door.tasks",
)
# What sysop.toml's reader and the data it shares with the ways in (a linked board, the pinned
# xterm.js) may import from the door: the engine's rules, and one another.
BELOW_THE_WAYS_IN = ("door.config", "door.levels", "door.linked_board", "door.xterm")
CONFIG_MAY_IMPORT = ("door.engine", *BELOW_THE_WAYS_IN)
# What the ways in may import from the door: nothing above them.
NET_MAY_IMPORT = ("door.net", *BELOW_THE_WAYS_IN)


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("door", "ansi"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _module_of(name: str) -> str | None:
    """The door's or ansi's module ``name`` is, or is in; None for anything else."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(source: str, package: str) -> Iterator[str]:
    """Every name imported in ``source``, wherever the import is; ``package`` for relative ones."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = _imported_names(path.read_text(encoding="utf-8"), package)
    found = {_module_of(name) for name in names}
    return {name for name in found if name is not None and name != module}


GRAPH = {module: _imports(module) for module in MODULES}


def _in(module: str, rooms: tuple[str, ...]) -> bool:
    return any(module == room or module.startswith(room + ".") for room in rooms)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_the_import_reader_sees_hidden_imports_and_circles() -> None:
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from door.engine.game import Game
def later():
    from door.store import Store
    from . import terminal
"""
    found = {_module_of(name) for name in _imported_names(source, "door.net")}
    assert {"door.engine.game", "door.store", "door.net.terminal"} <= found
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_in_the_rooms() -> None:
    circles = _circles(GRAPH)
    assert [group for group in circles if any(_in(m, ROOMS_WITHOUT_CIRCLES) for m in group)] == []


def test_the_ways_in_import_nothing_above_them() -> None:
    reaching_up = {
        (module, other)
        for module, imported in GRAPH.items()
        if _in(module, ("door.net",))
        for other in imported
        if other.startswith("door") and not _in(other, NET_MAY_IMPORT)
    }
    assert reaching_up == set()


def test_the_settings_import_nothing_from_the_ways_in_or_above() -> None:
    reaching_up = {
        (module, other)
        for module, imported in GRAPH.items()
        if _in(module, BELOW_THE_WAYS_IN)
        for other in imported
        if other.startswith("door") and not _in(other, CONFIG_MAY_IMPORT)
    }
    assert reaching_up == set()


def test_the_terminal_toolkit_imports_nothing_from_the_door() -> None:
    from_door = {
        (module, other)
        for module, imported in GRAPH.items()
        if _in(module, ("ansi",))
        for other in imported
        if _in(other, ("door",))
    }
    assert from_door == set()
