"""`deja install continue --mcp-pythonpath`: the VS Code extension's "Connect to Continue" wires
the MCP server to the bundled Deja (the resolved Python, the bundled libraries on PYTHONPATH)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).parent.parent


def deja(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(root), "DEJA_HOME": str(root / "home")}
    return subprocess.run(
        [sys.executable, "-m", "deja", *args], env=env, capture_output=True, text=True, check=False
    )


def test_the_mcp_entry_carries_the_bundled_pythonpath_and_uninstall_removes_it(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("name: mine\nversion: 1.0.0\nschema: v1\n")
    libs = str(tmp_path / "ext" / "bundled" / "libs")
    installed = deja(tmp_path, "install", "continue", "--mcp-pythonpath", libs)
    assert installed.returncode == 0, installed.stderr
    entry = YAML(typ="safe").load(config.read_text())["mcpServers"][0]
    assert entry == {
        "name": "deja",
        "command": sys.executable,
        "args": ["-m", "deja", "mcp"],
        "env": {"PYTHONPATH": libs},
    }
    again = deja(tmp_path, "install", "continue", "--mcp-pythonpath", libs)
    assert "already installed" in again.stdout
    assert deja(tmp_path, "uninstall", "continue").returncode == 0
    assert config.read_text() == "name: mine\nversion: 1.0.0\nschema: v1\n"


def test_without_the_option_the_entry_has_no_env(tmp_path: Path) -> None:
    assert deja(tmp_path, "install", "continue").returncode == 0
    entry = YAML(typ="safe").load((tmp_path / "config.yaml").read_text())["mcpServers"][0]
    assert "env" not in entry
