"""Real editors driving the sidecar: Neovim (`vim.lsp`) and Emacs with eglot, headless, each
through the very configuration docs/editors.md gives, against a store the real `cn` wrote.

The editors are Debian packages that `make tools` installs (as it does PostgreSQL): a missing one
fails the test with the way to install it, never skips it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cn_install import ensure_cn
from tests.support.scenarios import run_scenario

HERE = Path(__file__).parent
EDITOR_TIMEOUT_S = 120
# The line of app.py cn's Edit wrote (0-based): `    return 'hello, world'`.
EDITED_LINE = 1


def require(program: str, package: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.fail(f"{program} is not installed: run `make tools` (Debian's {package})")
    return found


@dataclass(frozen=True)
class EditedProject:
    """A project whose app.py the real `cn` edited, its store, and a Deja home."""

    workspace: Path
    store: Path
    home: Path
    env: dict[str, str]

    @property
    def app_py(self) -> Path:
        return self.workspace / "app.py"


@pytest.fixture(scope="session")
def edited(tmp_path_factory: pytest.TempPathFactory) -> EditedProject:
    base = tmp_path_factory.mktemp("editors")
    run = run_scenario("read_edit", cn=ensure_cn(), base=base)
    user_home = base / "user-home"
    user_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("CONTINUE_GLOBAL_DIR", "XDG_DATA_HOME")}
    env.update(
        HOME=str(user_home),  # no user's editor configuration is read
        XDG_CONFIG_HOME=str(user_home / ".config"),
        XDG_STATE_HOME=str(user_home / ".state"),
        DEJA_CONTINUE_ROOT=str(run.root),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    return EditedProject(run.workspace, run.root, base / "deja-home", env)


@pytest.fixture
def home(edited: EditedProject, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment for one editor run: a Deja home of its own."""
    yield {**edited.env, "DEJA_HOME": str(tmp_path / "deja-home")}


def run_editor(argv: list[str], env: dict[str, str], cwd: Path, out: Path) -> dict[str, Any]:
    """Run the editor to its end and return what its script recorded (the steps it reached)."""
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=EDITOR_TIMEOUT_S
    )
    if not out.exists():
        raise AssertionError(
            f"{argv[0]} recorded nothing (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    recorded: dict[str, Any] = json.loads(out.read_text())
    recorded["exit"], recorded["stderr"] = done.returncode, done.stderr
    return recorded


def gone(pid: int, timeout: float = 15.0) -> bool:
    """Whether the process has exited (its editor is gone, so nobody is left to reap it but
    init): waits on /proc, bounded."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status")
        try:
            lines = status.read_text().splitlines()
            state = next(line for line in lines if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError, StopIteration):
            return True
        if "zombie" in state:
            return True
        time.sleep(0.05)
    return False
