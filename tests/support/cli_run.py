"""Running the real `deja` CLI in a subprocess, as every CLI test does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def deja_env(store: Path | str, home: Path | str, **extra: str) -> dict[str, str]:
    """The environment of a `deja` run on `store` with its index in `home`; no colour."""
    return {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(home),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
        **extra,
    }


def run_deja(
    env: dict[str, str], *args: str, cwd: Path | str | None = "/", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deja", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def json_envelope(result: subprocess.CompletedProcess[str], command: str) -> dict[str, Any]:
    """The `--json` envelope of `command` (schema 1) on stdout."""
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["schema"] == 1 and data["command"] == command, data
    return data
