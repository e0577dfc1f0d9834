"""`deja doctor --json` on the contract's world, as the editor's "Deja: Show Diagnostics" reads
it, with what follows from this machine fixed (interpreter, versions, sizes, times)."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

from tests.lsp.conftest import World
from tests.support.cli_run import json_envelope

FIXED = [
    (re.compile(r"Python \d+\.\d+\.\d+"), "Python 3.11.2"),
    (re.compile(r"orjson \d[\w.]*"), "orjson 3.10.0"),
    (re.compile(r"\b\d+(?:\.\d+)? (?:B|KB|MB|GB)\b"), "120.0 KB"),
    (
        re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"),
        "2025-11-13T09:30:00Z",
    ),
    (re.compile(r"answered in \d+\.\d s"), "answered in 1.5 s"),
    (re.compile(r"^default .*"), "default /home/u/.continue"),
]
KEYS = {"bytes": 122880, "last_pass": "2025-11-13T09:30:00Z"}


def _fixed(value: Any, world: World, base: str, key: str = "") -> Any:
    if key in KEYS and value is not None:
        return KEYS[key]
    if isinstance(value, dict):
        return {name: _fixed(item, world, base, name) for name, item in value.items()}
    if isinstance(value, list):
        return [_fixed(item, world, base) for item in value]
    if not isinstance(value, str):
        return value
    text = value.replace(sys.executable, "/usr/bin/python3").replace(str(world.base), base)
    for pattern, replacement in FIXED:
        text = pattern.sub(replacement, text)
    return text


def doctor_fixture(world: World, base: str) -> dict[str, Any]:
    """The envelope of a run whose Continue is not wired (so failures carry their fixes)."""
    env = {**world.env, "XDG_CONFIG_HOME": str(world.base / "config")}
    result = subprocess.run(
        [sys.executable, "-m", "deja", "doctor", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 1, result.stderr
    return dict(_fixed(json_envelope(result, "doctor"), world, base))
