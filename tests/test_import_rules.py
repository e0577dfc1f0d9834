"""The layering, asserted over every module's imports (`ast`, lazy and typing-only imports
included): the core imports no front door and no editor library; no front door imports another,
the launchers `deja serve` and `deja mcp` excepted; `deja search` loads only what it needs."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "server" / "deja"
CORE = (
    "continue_store",
    "index",
    "query",
    "wire",
    "settings",
    "time_format",
    "quantities",
    "facts",
    "operations",
    "recall",
    "render_markdown",
    "jsonlib",
    "team",
    "export",
    "continue_write",
    "wire_share",
)
FRONT_DOORS = ("deja.cli", "deja.lsp", "deja.mcp", "deja.tui")
EDITOR_LIBRARIES = ("pygls", "lsprotocol", "mcp")
# The commands that start another front door: the only imports from one door into another.
LAUNCHERS = {
    "deja.cli.commands.serve": "deja.lsp",
    "deja.cli.commands.mcp": "deja.mcp",
    "deja.cli.main": "deja.tui",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module `path` imports, absolute; `from x import y` counts as x and x.y."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return found


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def test_every_module_is_seen() -> None:
    assert "deja.wire" in MODULES and "deja.cli.commands.search" in MODULES
    assert all(f"deja.{core}" in MODULES for core in CORE)


@pytest.mark.parametrize(
    "name", [m for m in MODULES if any(within(m, f"deja.{core}") for core in CORE)]
)
def test_the_core_imports_no_front_door_and_no_editor_library(name: str) -> None:
    wrong = {
        target
        for target in imported(MODULES[name])
        if any(within(target, door) for door in FRONT_DOORS)
        or any(within(target, library) for library in EDITOR_LIBRARIES)
    }
    assert not wrong, f"{name} imports {sorted(wrong)}"


@pytest.mark.parametrize(
    "name", [m for m in MODULES if any(within(m, door) for door in FRONT_DOORS)]
)
def test_no_front_door_imports_another(name: str) -> None:
    own = next(door for door in FRONT_DOORS if within(name, door))
    wrong = {
        target
        for target in imported(MODULES[name])
        if any(within(target, door) for door in FRONT_DOORS if door != own)
        and not within(target, LAUNCHERS.get(name, "-"))
    }
    assert not wrong, f"{name} imports {sorted(wrong)}"


def test_the_import_walk_sees_relative_and_lazy_imports() -> None:
    assert "deja.cli.common" in imported(MODULES["deja.cli.commands.search"])
    assert "deja.cli.render" in imported(MODULES["deja.cli.commands.search"])
    assert "deja.lsp.server" in imported(MODULES["deja.cli.commands.serve"])  # inside `run`
    assert "deja.query.restore" in imported(MODULES["deja.cli.commands.restore"])


def test_search_loads_its_command_alone(tmp_path: Path) -> None:
    """`deja search` imports the search command only: no other command, no restore, no
    editor library (start-up cost)."""
    (tmp_path / "store" / "sessions").mkdir(parents=True)
    probe = (
        "import sys; from deja.cli.main import main; code = main(['search', '--all', 'x']);"
        " print(code); print(' '.join(sorted(sys.modules)))"
    )
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "store"),
        "DEJA_HOME": str(tmp_path / "home"),
    }
    run = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    code, modules = run.stdout.splitlines()[-2:]
    loaded = set(modules.split())
    assert code == "0"
    commands = {m for m in loaded if within(m, "deja.cli.commands") and m != "deja.cli.commands"}
    assert commands == {"deja.cli.commands.search"}
    heavy = (
        "deja.query.restore",
        "deja.lsp",
        "deja.mcp",
        "deja.team",
        "psycopg",
        "deja.tui",
        "textual",
        # The request types are checked in plain Python on this path (`deja.operations`).
        "attrs",
        "attr",
        "cattrs",
        *EDITOR_LIBRARIES,
    )
    assert not {m for m in loaded if any(within(m, h) for h in heavy)}
    assert "deja.operations" in loaded


def test_the_store_writer_is_reached_only_through_history_recover() -> None:
    """`deja.continue_write` is the one module that writes into Continue's store: only
    `History.recover` imports it (`query.recover` for its type), no front door and not the
    reader, so the rest of Deja stays read-only on the store."""
    importers = {
        name
        for name, path in MODULES.items()
        if any(within(target, "deja.continue_write") for target in imported(path))
        and name != "deja.continue_write"
    }
    assert importers == {"deja.query.history", "deja.query.recover"}
    assert not any(
        within(target, "deja.index") or within(target, "deja.query")
        for target in imported(MODULES["deja.continue_write"])
    )
