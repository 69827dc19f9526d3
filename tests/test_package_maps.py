"""Every package's docstring is its map: it names each of its modules, so that a newcomer
finds the room for a change from the package alone (and a module added is a line added)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(
    path.parent for name in ("door", "ansi") for path in (ROOT / name).rglob("__init__.py")
)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_package_map_names_every_module(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    dotted = ".".join(package.relative_to(ROOT).parts)
    modules = [path.stem for path in package.glob("*.py") if path.stem != "__init__"]
    modules += [path.name for path in package.iterdir() if (path / "__init__.py").exists()]
    missing = [
        name
        for name in sorted(modules)
        if f"{dotted}.{name}`" not in docstring and f"~{dotted}.{name}`" not in docstring
    ]
    assert not missing, f"{dotted}'s docstring does not name: {', '.join(missing)}"
