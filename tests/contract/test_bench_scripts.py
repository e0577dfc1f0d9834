"""Every script `make bench` and `make bench-tiny` run loads: each one's `--help` runs its
imports. The tests do not run the bench (it measures, for minutes); a script that no longer
imports what the package names would otherwise be found only by the next `make bench`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPTS = sorted(set(re.findall(r"\$\(PY\) (bench/\S+\.py)", (ROOT / "Makefile").read_text())))


def test_the_makefile_names_the_bench_scripts() -> None:
    assert "bench/run.py" in SCRIPTS and "bench/idle_deep.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_bench_script_loads(script: str) -> None:
    result = subprocess.run(
        [sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage:"), result.stdout
