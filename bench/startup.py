"""Start-up as a user feels it: `deja --version`, `deja --help` and a words-only `deja search`
as processes, each against the bare interpreter (`python -c pass`) in the same interleaved
rounds, so the figure is what Deja adds to Python's own start.

    python bench/startup.py [--runs 30] [--store fixtures/sample-store]

The search runs over an index of `--store` built first in a temporary home. The console
script beside this interpreter is what is timed (what `pip install` gives a user), with its
`.pyc` files written as an install has them (one untimed round first)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS_MS = {"--version": 30.0, "--help": 30.0, "search": 40.0}


def deja_command() -> list[str]:
    script = Path(sys.executable).with_name("deja")
    return [str(script)] if script.exists() else [sys.executable, "-m", "deja"]


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--store", type=Path, default=HERE.parent / "fixtures" / "sample-store")
    parser.add_argument("--word", default="timeout", help="the search's word")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="deja-startup-"))
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(args.store), "DEJA_HOME": str(home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["DEJA_SEMANTIC"] = "0"
    deja = deja_command()
    cases = {
        "bare": [sys.executable, "-c", "pass"],
        "--version": [*deja, "--version"],
        "--help": [*deja, "--help"],
        "search": [*deja, "search", args.word, "--all"],
    }
    try:
        subprocess.run([*deja, "index"], env=env, check=True, capture_output=True)
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for round_ in range(args.runs + 1):
            for name, argv in cases.items():
                seconds = timed(argv, env)
                if round_:
                    samples[name].append(seconds)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    bare = statistics.median(samples["bare"]) * 1000
    print(f"start-up, {args.runs} interleaved rounds, load {os.getloadavg()[0]:.2f}")
    print(f"  bare interpreter: median {bare:.1f} ms, min {min(samples['bare']) * 1000:.1f} ms")
    for name, target in TARGETS_MS.items():
        median = statistics.median(samples[name]) * 1000
        above = median - bare
        met = "met" if above <= target else "not met"
        print(
            f"  deja {name}: median {median:.1f} ms, {above:+.1f} ms above bare"
            f" (target ≤ {target:.0f}: {met}), min {min(samples[name]) * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
