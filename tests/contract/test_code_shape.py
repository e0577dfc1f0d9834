"""The size and privacy rules, asserted over every module of `server/deja` (`ast`): no module
over 400 lines, no function over 80, no module importing another module's `_private` names, and
no comment or docstring carrying a benchmark figure (figures go stale; bench/RESULTS.md holds
them)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
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


# A throughput, a speed ratio, a profiler's share, or a figure tied to a bench store.
FIGURE = re.compile(
    r"[MKG]B/s|\d\s?×|\b\d+(?:\.\d+)?x\b|callgrind|\bbench store\b|\d\s?[MG]B store\b"
)


def prose(source: str) -> Iterator[tuple[int, str]]:
    """Each line of every comment and docstring, with its line number."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                for offset, line in enumerate(doc.splitlines()):
                    yield node.body[0].lineno + offset, line


def test_the_figure_pattern_finds_figures() -> None:
    found = [line for _, line in prose('"""x"""\n# about 200 MB/s here\n# made it 4× slower\n')]
    assert [line for line in found if FIGURE.search(line)] == [
        "# about 200 MB/s here",
        "# made it 4× slower",
    ]
    assert not FIGURE.search("# a BLOB when deflate makes it 10 % smaller")


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_no_comment_carries_a_benchmark_figure(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    figures = [f"{n}: {line.strip()}" for n, line in prose(source) if FIGURE.search(line)]
    assert figures == [], f"{name(path)}: {figures}"
