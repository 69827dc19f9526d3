"""The house's layout holds: arrows between rooms point one way.

Imports are read from the source (every ``import``, those inside functions and under
``TYPE_CHECKING`` included), so a circle hidden in a function is found as well as one at the
top of a module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

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
    "door.words",
)
# What sysop.toml's reader and the data it shares with the ways in (a linked board, the pinned
# xterm.js, the sysop's art and words) may import from the door: the engine's rules, and one
# another.
BELOW_THE_WAYS_IN = (
    "door.art",
    "door.config",
    "door.levels",
    "door.linked_board",
    "door.words",
    "door.xterm",
)
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


# -- the engine is pure ---------------------------------------------------------------------------

# What the engine may import besides itself: the standard library's data structures, and no
# more. No I/O (no os, io, sqlite3, socket, subprocess, logging: the engine reports by what
# it returns and raises, and the door logs), no concurrency (no asyncio, threading,
# multiprocessing: the solver's process pool is door.solving's). Two exceptions, by name:
# the solver reads a monotonic clock for its time budget (time.perf_counter, never a sleep
# nor the wall clock), and warns of a winning line the engine does not confirm by the
# warnings machinery, whose filters are the host's to set (the engine picks no stream).
ENGINE_MAY_IMPORT = frozenset(
    {
        "__future__",
        "collections",
        "collections.abc",
        "copy",
        "dataclasses",
        "enum",
        "functools",
        "itertools",
        "math",
        "struct",
        "typing",
        "warnings",
    }
)
ENGINE_MAY_IMPORT_NAMES = frozenset({("time", "perf_counter")})
# Built-ins that read or write the world, or run code given as text.
IMPURE_BUILTINS = frozenset(
    {"open", "print", "input", "breakpoint", "exec", "eval", "compile", "__import__"}
)
ENGINE_MODULES = {module: path for module, path in MODULES.items() if _in(module, ("door.engine",))}


def _impurities(source: str) -> list[str]:
    """What in ``source`` (its code, not its docstrings or doctests) the engine may not do:
    imports outside door.engine and the allowed ones, calls of impure built-ins, async code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ENGINE_MAY_IMPORT and not _in(alias.name, ("door.engine",)):
                    found.append(f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            if module in ENGINE_MAY_IMPORT or _in(module, ("door.engine",)):
                continue
            found += [
                f"from {module} import {alias.name}"
                for alias in node.names
                if (module, alias.name) not in ENGINE_MAY_IMPORT_NAMES
            ]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in IMPURE_BUILTINS:
                found.append(f"{node.func.id}() on line {node.lineno}")
        elif isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
            found.append(f"async code on line {node.lineno}")
    return found


def test_the_purity_reader_sees_io_concurrency_and_the_door_but_not_doctests() -> None:
    source = '''
"""A module.

>>> print(open("x").read())
"""
import os.path
import logging
from asyncio import sleep
from time import perf_counter, sleep as nap
from door.store import Store
from ansi.screen import ScreenBuffer
from collections.abc import Iterator
from door.engine.cards import Card
from . import moves

def f():
    """>>> print(1)"""
    print("hello")
    with open("file") as file:
        return file.read()

async def g():
    await sleep(1)
'''
    assert set(_impurities(source)) == {
        "import os.path",
        "import logging",
        "from asyncio import sleep",
        "from time import sleep",
        "from door.store import Store",
        "from ansi.screen import ScreenBuffer",
        "print() on line 18",
        "open() on line 19",
        "async code on line 22",
        "async code on line 23",
    }


@pytest.mark.slow
def test_the_engine_does_no_io_and_no_concurrency() -> None:
    impure = {
        module: found
        for module, path in ENGINE_MODULES.items()
        if (found := _impurities(path.read_text(encoding="utf-8")))
    }
    assert impure == {}


def test_the_engine_imports_nothing_of_the_door_but_itself() -> None:
    assert "door.engine.solver.search" in ENGINE_MODULES  # the solver is checked too
    outside = {
        (module, other)
        for module in ENGINE_MODULES
        for other in GRAPH[module]
        if not _in(other, ("door.engine",))
    }
    assert outside == set()
