"""How soon `deja mcp` answers `initialize` and `tools/list`, as `cn` sends them: wall time from
spawning the process to each answer's line, median and worst of the rounds; beside it, the same
handshake served by the MCP SDK (a first line the front does not answer hands everything to
the SDK, as before it existed). Also the bare interpreter's start, for the floor.
Usage: `python -m bench.mcp_start [--rounds 15]`."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
REST = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
PING = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def handshake(env: dict[str, str], *, by_sdk: bool) -> tuple[float, float]:
    """Milliseconds from spawn to the `initialize` answer and to the `tools/list` answer."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deja", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if by_sdk:
            proc.stdin.write(line(PING))
        proc.stdin.write(line(INITIALIZE))
        proc.stdin.flush()
        if by_sdk:
            proc.stdout.readline()
        assert b'"id":1' in proc.stdout.readline()
        initialized = time.perf_counter()
        proc.stdin.write(b"".join(line(m) for m in REST))
        proc.stdin.flush()
        assert b'"id":2' in proc.stdout.readline()
        listed = time.perf_counter()
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return (initialized - started) * 1000, (listed - started) * 1000


def bare_interpreter() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deja-mcp-start-"))
    (work / "store" / "sessions").mkdir(parents=True)
    env = {
        **os.environ,
        "DEJA_HOME": str(work / "home"),
        "DEJA_CONTINUE_ROOT": str(work / "store"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    handshake(env, by_sdk=False)  # .pyc written, the index created
    rows: dict[str, list[tuple[float, float]]] = {"front": [], "SDK": []}
    bare: list[float] = []
    for _ in range(args.rounds):  # interleaved: the machine's load falls on both alike
        rows["front"].append(handshake(env, by_sdk=False))
        rows["SDK"].append(handshake(env, by_sdk=True))
        bare.append(bare_interpreter())
    print(f"bare interpreter: median {statistics.median(bare):.0f} ms")
    for name, times in rows.items():
        init = [t[0] for t in times]
        listed = [t[1] for t in times]
        print(
            f"{name}: initialize median {statistics.median(init):.0f} ms (worst {max(init):.0f}),"
            f" tools/list median {statistics.median(listed):.0f} ms (worst {max(listed):.0f})"
        )


if __name__ == "__main__":
    main()
