"""What Windows needs that can be proven here: the index without `fcntl` (its whole test module
run with `import fcntl` failing), no POSIX-only module reached on import, the writer lock across
processes, Windows paths and URIs made comparable, and `deja resume`'s PowerShell line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from deja.continue_store.workspace import (
    normalize_workspace,
    relative_to_workspace,
    resolve_tool_path,
    workspace_contains,
)
from deja.index.lock import writer_lock
from deja.install import launcher
from deja.query import History, SessionSummary
from deja.query.handoff import native_path, powershell_quote, resume
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

REPO = Path(__file__).resolve().parents[2]
NO_FCNTL = REPO / "tests" / "support" / "no_fcntl"
POSIX_ONLY = ("fcntl", "termios", "pwd", "grp", "resource", "tty", "pty")


def without_fcntl_env() -> dict[str, str]:
    """Every Python started with this environment fails on `import fcntl` (sitecustomize)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(NO_FCNTL), *sys.path])}


def test_the_index_test_module_passes_without_fcntl() -> None:
    check = "import sys\ntry:\n import fcntl\nexcept ImportError: print('no fcntl')"
    probe = subprocess.run(
        [sys.executable, "-c", check], env=without_fcntl_env(), capture_output=True, text=True
    )
    assert probe.stdout.strip() == "no fcntl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/index/test_index.py",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        env=without_fcntl_env(),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    passed = re.match(r"(\d+) passed in ", summary)
    assert passed and int(passed.group(1)) >= 16, summary  # the module's tests, none skipped


IMPORT_ALL = """
import importlib, pkgutil, sys, traceback
for name in {blocked!r}:
    sys.modules[name] = None
import deja
deja_dir = deja.__path__[0]
for info in pkgutil.walk_packages(deja.__path__, "deja."):
    if info.name == "deja.__main__":
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as error:
        frames = traceback.extract_tb(error.__traceback__)
        frames = [f for f in frames if "<frozen" not in f.filename]
        print(info.name, frames[-1].filename, error)
print("imported")
"""


def test_no_module_of_deja_imports_a_posix_only_module() -> None:
    """Every module imports with POSIX-only modules missing, or fails only inside a library that
    picks them by `sys.platform` (the MCP SDK's stdio, on POSIX): never in Deja's own code."""
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL.format(blocked=POSIX_ONLY)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 0 and lines[-1] == "imported", result.stderr
    deja_dir = str(REPO / "server" / "deja")
    for line in lines[:-1]:
        assert deja_dir not in line, line
        assert "site-packages/mcp/" in line, line


HOLD = """
import sys, time
from pathlib import Path
from deja.index.lock import writer_lock
from deja.install import launcher
with writer_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


def test_the_writer_lock_excludes_other_processes_and_dies_with_its_holder(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "index.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)],
        env=without_fcntl_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    taken = threading.Event()

    def take() -> None:
        with writer_lock(lock):
            taken.set()

    waiter = threading.Thread(target=take, daemon=True)
    waiter.start()
    try:
        assert not taken.wait(1.0)  # held by the other process
        holder.kill()  # as a crash would: the system releases the lock
        holder.wait()
        assert taken.wait(60)
    finally:
        holder.kill()
        holder.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.lock"]  # no journal left
    assert lock.stat().st_size == 0
    assert lock.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "written",
    [
        "file:///c%3A/Users/Ann/My%20Project",  # VS Code's workspace URI
        "file:///C:/Users/Ann/My%20Project/",
        "C:\\Users\\Ann\\My Project",  # the CLI's process.cwd() on Windows
        "C:\\Users\\Ann\\My Project\\",
        "c:/Users/Ann/My Project",
        "/c:/Users/Ann/My Project",
    ],
)
def test_windows_workspaces_compare_equal_to_the_editor_folder(written: str) -> None:
    editor_folder = "C:\\Users\\Ann\\My Project"
    assert normalize_workspace(written) == normalize_workspace(editor_folder)
    assert normalize_workspace(written) == "c:/Users/Ann/My Project"


def test_windows_roots_unc_shares_and_containment() -> None:
    assert normalize_workspace("C:\\") == normalize_workspace("file:///c%3A/") == "c:/"
    unc = normalize_workspace("\\\\server\\share\\proj")
    assert unc == normalize_workspace("file://server/share/proj") == "//server/share/proj"
    workspace = normalize_workspace("file:///c%3A/Users/Ann/proj")
    assert workspace_contains(workspace, normalize_workspace("C:\\Users\\Ann\\proj\\src"))
    assert not workspace_contains(workspace, normalize_workspace("C:\\Users\\Ann\\project"))
    assert workspace_contains("c:/", "c:/Users")


@pytest.mark.parametrize(
    "tool_path",
    [
        "C:\\Users\\Ann\\proj\\src\\app.py",
        "c:/Users/Ann/proj/src/app.py",
        "file:///c%3A/Users/Ann/proj/src/app.py",
        "src\\app.py",
        "src/app.py",
        ".\\src\\app.py",
    ],
)
def test_windows_tool_paths_land_in_the_workspace(tool_path: str) -> None:
    workspace = normalize_workspace("file:///c%3A/Users/Ann/proj")
    resolved = resolve_tool_path(tool_path, workspace)
    assert resolved == "c:/Users/Ann/proj/src/app.py"
    assert relative_to_workspace(resolved, workspace) == "src/app.py"


def test_a_backslash_stays_a_character_in_posix_paths() -> None:
    assert resolve_tool_path("odd\\name.txt", "/home/ann/proj") == "/home/ann/proj/odd\\name.txt"


def read_verbatim(text: str) -> tuple[str, str]:
    """PowerShell's verbatim string at the start of `text` (the language spec's rule: a single
    quotation mark ends it, two in a row are one) → (its value, the rest of the line)."""
    quotes = "'\u2018\u2019\u201a\u201b"
    assert text[0] in quotes
    value, at = [], 1
    while True:
        char = text[at]
        if char in quotes:
            if at + 1 < len(text) and text[at + 1] in quotes:
                value.append(char)
                at += 2
                continue
            return "".join(value), text[at + 1 :]
        value.append(char)
        at += 1


HOSTILE = [
    "it's here",
    "'; Remove-Item -Recurse ~; '",
    "$(Invoke-Expression calc) $env:PATH",
    'back`tick `n and "double"',
    "smart \u2018quotes\u2019 \u201a\u201b",
    "semi; amp & pipe | redirect > x",
    "@(array) {block} #comment",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_powershell_resume_line_quotes_hostile_paths(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    session_id = "5e551011-aaaa-4bbb-8ccc-000000000001"
    summary = SessionSummary(
        session_id, "t", str(folder), name, 0.0, 0.0, "", "", 1, 1, False, 0, False
    )
    launch = resume(summary, "powershell")
    prefix = "Set-Location -LiteralPath "
    assert launch.line.startswith(prefix)
    value, rest = read_verbatim(launch.line[len(prefix) :])
    assert value == str(folder)
    assert rest == f"; cn --fork {session_id}"
    assert launch.argv == ["cn", "--fork", session_id] and launch.cwd == str(folder)


def test_windows_workspaces_are_printed_as_windows_writes_them() -> None:
    assert native_path("c:/Users/Ann/My Project") == "C:\\Users\\Ann\\My Project"
    assert native_path("//server/share/proj") == "\\\\server\\share\\proj"
    assert native_path("/home/ann/proj") == "/home/ann/proj"
    assert powershell_quote("C:\\Users\\O'Neil") == "'C:\\Users\\O''Neil'"


def test_deja_resume_shell_powershell(tmp_path: Path) -> None:
    workspace = tmp_path / "Ann's $project"
    workspace.mkdir()
    store, home = tmp_path / "continue", tmp_path / "home"
    session_id = "5e551011-aaaa-4bbb-8ccc-000000000009"
    write_session(store, session_doc(session_id, [user("resume me")], workspace=str(workspace)))
    env = deja_env(store, home)
    quoted = powershell_quote(str(workspace))
    result = run_deja(env, "resume", session_id[:8], "--shell", "powershell")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Set-Location -LiteralPath {quoted}; cn --fork {session_id}"
    as_json = json_envelope(
        run_deja(env, "resume", session_id, "--shell", "powershell", "--json"), "resume"
    )
    assert as_json["line"] == result.stdout.strip() and as_json["cwd"] == str(workspace)
    bad = run_deja(env, "resume", session_id, "--shell", "cmd")
    assert bad.returncode == 2 and "invalid choice: 'cmd'" in bad.stderr


def test_deja_handoff_shell_powershell(tmp_path: Path) -> None:
    workspace = tmp_path / "Ann's $project"
    workspace.mkdir()
    store, home = tmp_path / "continue", tmp_path / "home"
    session_id = "5e551011-aaaa-4bbb-8ccc-00000000000a"
    request = "fix it's $env:PATH `n \u2019quoted\u2019 & more"
    write_session(store, session_doc(session_id, [user(request)], workspace=str(workspace)))
    env = deja_env(store, home)
    result = run_deja(env, "handoff", session_id[:8], "--shell", "powershell")
    assert result.returncode == 0, result.stderr
    line = result.stdout.rstrip("\n")
    assert line.startswith("cn ")
    digest, rest = read_verbatim(line[3:])
    assert rest == "" and request in digest
    where = powershell_quote(str(workspace))
    assert f"Set-Location -LiteralPath {where}" in result.stderr
    as_json = json_envelope(
        run_deja(env, "handoff", session_id, "--shell", "powershell", "--json"), "handoff"
    )
    assert as_json["argv"] == ["cn", digest] and as_json["line"] == line


def windows_edit(session_id: str, workspace: str, file_path: str, text: str) -> dict[str, Any]:
    edit = call(
        "Edit",
        {"file_path": file_path, "old_string": "pass", "new_string": text},
        f"Successfully edited {file_path}",
    )
    return session_doc(
        session_id, [user(f"change {text}"), assistant("", [edit])], workspace=workspace
    )


def test_a_windows_store_answers_the_editors_folders_and_uris(tmp_path: Path) -> None:
    """Sessions as VS Code (`file:///c%3A/…`) and `cn` (`C:\\…`, tool paths with backslashes)
    write them on Windows; the editor asks with `C:\\…` folders and `file:///c%3A/…` URIs."""
    store = tmp_path / "continue"
    app = "C:\\Users\\Ann\\My Project\\src\\app.py"
    write_session(
        store, windows_edit("ide-session-1", "file:///c%3A/Users/Ann/My%20Project", app, "ide_edit")
    )
    write_session(
        store,
        windows_edit("cli-session-2", "C:\\Users\\Ann\\My Project", "src\\app.py", "cli_edit"),
    )
    write_session(store, session_doc("other-session-3", [user("x")], workspace="D:\\elsewhere"))
    history = History(tmp_path / "home", store)
    try:
        history.refresh()
        scope = history.scope_for_folders(["C:\\Users\\Ann\\My Project"]).scope
        assert scope.workspaces == ("c:/Users/Ann/My Project",)
        listed = {s.id for s in history.sessions(scope)}
        assert listed == {"ide-session-1", "cli-session-2"}
        for asked in (
            "file:///c%3A/Users/Ann/My%20Project/src/app.py",
            "C:\\Users\\Ann\\My Project\\src\\app.py",
            "c:/Users/Ann/My Project/src/app.py",
        ):
            events = history.file_history(asked, cwd="/somewhere/else")
            assert {e.session_id for e in events} == {"ide-session-1", "cli-session-2"}, asked
            assert {e.path for e in events} == {"c:/Users/Ann/My Project/src/app.py"}
        named = history.scope_for(workspace="C:\\Users\\Ann\\My Project", cwd="/x").scope
        assert named.workspaces == ("c:/Users/Ann/My Project",)
    finally:
        history.close()


def test_install_names_the_windows_script_deja_exe(tmp_path: Path) -> None:
    script = tmp_path / "Scripts" / "deja.exe"
    script.parent.mkdir()
    script.write_bytes(b"MZ")
    script.chmod(0o755)
    assert launcher(str(script)) == (str(script), ["mcp"])
    assert launcher(str(tmp_path / "Scripts" / "deja.py"))[1] == ["-m", "deja", "mcp"]
