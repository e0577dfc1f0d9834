"""The layering, asserted over every module's imports (`ast`, lazy and typing-only imports
included): the core imports no front door and no editor library; no front door imports another,
the launchers `deja serve` and `deja mcp` excepted; `deja search` loads only what it needs.

The index layer (`index/` writes, `query/` reads through `History`, `semantic/` keeps the
vectors beside them) alone opens SQLite and names the index's tables; everything else reads
through `History`, which keeps its connection private. No two modules import each other at run
time (module-level or inside a function; imports under `TYPE_CHECKING` do not run)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deja.semantic.vectors import DEEP, LIGHT

PACKAGE = Path(__file__).parents[2] / "server" / "deja"
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
    "recall_frame",
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


# The index layer: the only modules that open SQLite or name a table of the index.
INDEX_LAYER = ("deja.index", "deja.query", "deja.semantic")
_CREATED = re.compile(r"CREATE (?:VIRTUAL )?(?:TABLE|VIEW) IF NOT EXISTS (\w+)")
INDEX_TABLES = sorted(
    {
        table
        for name, path in MODULES.items()
        if any(within(name, layer) for layer in INDEX_LAYER)
        for table in _CREATED.findall(path.read_text(encoding="utf-8"))
    }
    # The vector sets' tables are named by their `VectorSet`, not written out in a CREATE.
    | {name for vectors in (LIGHT, DEEP) for name in (vectors.table, vectors.changes)}
)
_SQL_NAMING = re.compile(
    rf"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:{'|'.join(INDEX_TABLES)})\b(?![-.\w])"
)
OUTSIDE_THE_INDEX_LAYER = [
    name for name in MODULES if not any(within(name, layer) for layer in INDEX_LAYER)
]


def strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def test_the_index_tables_are_found() -> None:
    assert {
        "sessions",
        "records",
        "records_fts",
        "tombstones",
        "record_vectors",
        "record_vectors_deep",
    } <= set(INDEX_TABLES)
    assert _SQL_NAMING.search("SELECT count(*) FROM excluded")
    assert not _SQL_NAMING.search("DELETE FROM deja_records WHERE member = current_user")


@pytest.mark.parametrize("name", OUTSIDE_THE_INDEX_LAYER)
def test_only_the_index_layer_opens_sqlite(name: str) -> None:
    wrong = {target for target in imported(MODULES[name]) if within(target, "sqlite3")}
    assert not wrong, f"{name} imports {sorted(wrong)}: read the index through History"


@pytest.mark.parametrize("name", OUTSIDE_THE_INDEX_LAYER)
def test_only_the_index_layer_names_the_index_tables(name: str) -> None:
    wrong = [text for text in strings(MODULES[name]) if _SQL_NAMING.search(text)]
    assert not wrong, f"{name} queries the index: {wrong}"


@pytest.mark.parametrize("name", OUTSIDE_THE_INDEX_LAYER)
def test_nothing_outside_the_index_layer_reaches_into_history(name: str) -> None:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    wrong = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in {"_db", "_index"}
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    ]
    assert not wrong, f"{name}: {wrong}"


def test_history_hands_out_no_connection_and_no_index() -> None:
    """History's public members answer questions; none gives the connection or the `Index`
    (which holds it): the facade is closed."""
    public = [
        f"{module}.{node.name} -> {ast.unparse(node.returns)}"
        for module in ("deja.query.history", "deja.query.forgetting")
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
        and not node.name.startswith("_")
        and node.returns is not None
        and re.search(r"\b(Connection|Index)\b", ast.unparse(node.returns))
    ]
    assert not public, public
    from deja.query import History

    opened = {name for name in vars(History) if not name.startswith("_")}
    assert not opened & {"db", "index", "connection"}


# Runtime import cycles ---------------------------------------------------------------------


def _lazy_names(name: str) -> dict[str, str]:
    """A package's names loaded on first use (`lazy_exports`: its `_WHERE`), absolute."""
    path = MODULES[name]
    if path.name != "__init__.py":
        return {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_WHERE" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            where = ast.literal_eval(node.value)
            return {
                key: name + value if value.startswith(".") else value
                for key, value in where.items()
            }
    return {}


LAZY = {name: _lazy_names(name) for name in MODULES}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import that runs: anywhere (functions included) but under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def runtime_imports(name: str) -> set[str]:
    """The package's modules `name` imports at run time; a lazily exported name counts as the
    module it loads from."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        names = [LAZY.get(source, {}).get(a.name, f"{source}.{a.name}") for a in node.names]
        found.update(names)
        if not all(target in MODULES for target in names):  # a name the package itself defines
            found.add(source)
    return {target for target in found if target in MODULES and target != name}


def cycles() -> set[frozenset[str]]:
    """The groups of modules that import each other at run time (Tarjan's strongly connected
    components of more than one module)."""
    graph = {name: runtime_imports(name) for name in MODULES}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def connect(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in order:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for name in sorted(graph):
        if name not in order:
            connect(name)
    return found


# None allowed: a cycle is a module whose two halves belong apart (the test fails when one
# returns, and when this list names one that has gone).
KNOWN_CYCLES: set[frozenset[str]] = set()


def test_the_runtime_walk_sees_function_imports_and_skips_typing_ones() -> None:
    assert "deja.query.restore" in runtime_imports("deja.query.history")  # inside `restore`
    assert "deja.index.core" in runtime_imports("deja.query.history")  # `Index`, lazily exported
    assert "deja.index.core" in imported(MODULES["deja.index.refresh"])  # for its types only
    assert "deja.index.core" not in runtime_imports("deja.index.refresh")
    assert "deja.install" not in runtime_imports("deja.install.continue_setup")  # a sibling


def test_no_modules_import_each_other_at_run_time() -> None:
    found = cycles()
    new = {", ".join(sorted(group)) for group in found - KNOWN_CYCLES}
    assert not new, f"runtime import cycles: {sorted(new)}"
    gone = {", ".join(sorted(group)) for group in KNOWN_CYCLES - found}
    assert not gone, f"no longer cycles (take them out of KNOWN_CYCLES): {sorted(gone)}"
