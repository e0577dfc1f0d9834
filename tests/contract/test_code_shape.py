"""The size and privacy rules, asserted over every module of `server/deja` (`ast`): no module
over 400 lines, no function over 80, and no module importing another module's `_private` names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "server" / "deja"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
MODULES = sorted(PACKAGE.rglob("*.py"))


def name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_every_module_is_seen() -> None:
    assert PACKAGE / "index" / "core.py" in MODULES and len(MODULES) > 50


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_no_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{name(path)} has {lines} lines"


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_no_function_is_over_80_lines(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [
        f"{node.name} ({node.lineno}): {lines} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert not long, f"{name(path)}: {long}"


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_no_module_imports_private_names(path: Path) -> None:
    """`from x import _name` reaches into another module; dunders (`__version__`) are public."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = [
        f"from {'.' * node.level}{node.module or ''} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert not private, f"{name(path)}: {private}"
