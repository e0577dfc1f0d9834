"""One very large `cn` session, indexed in a fresh process: wall time and peak RSS.

    python -m bench.big_session [--sizes 100M,1G] [--out DIR] [--keep]

Generates, for each size, a store holding one `cn`-shaped session of that many bytes (shaped as
`cn` 1.5.47 writes one: `JSON.stringify(session, null, 2)`, keys sessionId, title,
workspaceDirectory, history, usage; Bash, Read and Edit calls with their results only in
`toolCallStates[].output`, outputs of a few KB to a few hundred KB, a secret now and then), then
runs `python -m deja index` over it in a child process with a fresh `DEJA_HOME` and no size cap,
and reports the child's wall time and peak RSS (`os.wait4`'s `ru_maxrss`). The same seed and
size give the same bytes."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from deja import jsonlib

SESSION_ID = "b1g5e551-0000-4000-8000-000000000001"
WORKSPACE = "/home/dev/bigproject"
_WORDS = (
    "alpha",
    "beta",
    "gamma",
    "delta",
    "parse",
    "config",
    "index",
    "record",
    "session",
    "token",
    "render",
    "build",
    "cache",
    "worker",
    "thread",
    "queue",
    "socket",
    "retry",
    "timeout",
    "handler",
    "schema",
    "migrate",
    "vector",
    "ranked",
    "stream",
    "window",
    "buffer",
    "encode",
    "decode",
    "commit",
    "branch",
    "merge",
    "deploy",
    "lambda",
    "cursor",
    "reader",
    "writer",
)


def _lines(rng: random.Random, count: int) -> list[str]:
    """A pool of code- and log-like lines the outputs are sampled from."""
    pool: list[str] = []
    for n in range(count):
        a, b, c = rng.choice(_WORDS), rng.choice(_WORDS), rng.choice(_WORDS)
        kind = n % 4
        if kind == 0:
            pool.append(f"def {a}_{b}(self, {c}: int) -> str:  # {rng.randrange(10**6)}")
        elif kind == 1:
            pool.append(f"    return self.{a}{b.title()}({c}, retries={rng.randrange(9)})")
        elif kind == 2:
            pool.append(f"src/{a}/{b}.py:{rng.randrange(900)}: {c} finished in {rng.random():.3f}s")
        else:
            pool.append(f"INFO {a}.{b} {c}={rng.randrange(10**9):x} ok")
    return pool


def _text(rng: random.Random, pool: list[str], size: int) -> str:
    return "\n".join(rng.choices(pool, k=max(1, size // 45)))


def _state(call_id: str, name: str, args: dict[str, Any], output: str) -> dict[str, Any]:
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": jsonlib.dumps(args).decode()},
    }
    return {
        "toolCallId": call_id,
        "toolCall": call,
        "status": "done",
        "parsedArgs": args,
        "output": [
            {"content": output, "name": "Tool Result", "description": "Tool execution result"}
        ],
    }


def _items(rng: random.Random, target: int) -> Iterator[dict[str, Any]]:
    pool = _lines(rng, 4000)
    written = 0
    turn = 0
    while written < target:
        turn += 1
        ask = f"round {turn}: look at the {rng.choice(_WORDS)} {rng.choice(_WORDS)} failure"
        yield {"message": {"role": "user", "content": ask}, "contextItems": [], "editorState": ask}
        for call in range(rng.randrange(1, 6)):
            call_id = f"call_{turn}_{call}"
            path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{turn % 97}.py"
            kind = rng.random()
            size = int(rng.lognormvariate(10.0, 1.2))  # median ~22 KB, a tail of MBs
            if kind < 0.5:
                output = _text(rng, pool, size)
                if turn % 10 == 3:
                    output += (
                        f"\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY{turn:08d}"
                    )
                state = _state(call_id, "Bash", {"command": f"pytest -k {path}"}, output)
            elif kind < 0.8:
                output = f"Content of {path}:\n" + _text(rng, pool, size)
                state = _state(call_id, "Read", {"filepath": path}, output)
            else:
                old, new = _text(rng, pool, 300), _text(rng, pool, 400)
                args = {"file_path": path, "old_string": old, "new_string": new}
                output = f"Successfully edited {WORKSPACE}/{path}\nDiff:\n" + _text(rng, pool, 2000)
                state = _state(call_id, "Edit", args, output)
            written += len(output) + 600
            yield {
                "message": {"role": "assistant", "content": "", "toolCalls": [state["toolCall"]]},
                "contextItems": [],
                "toolCallStates": [state],
            }
        reply = f"Done with round {turn}: the {rng.choice(_WORDS)} path now retries."
        yield {"message": {"role": "assistant", "content": reply}, "contextItems": []}


def write_session(path: Path, target: int, seed: int = 1) -> int:
    """A `cn` session of about `target` bytes at `path`, written item by item (bounded memory)."""
    rng = random.Random(seed)
    with path.open("wb") as out:
        head = {
            "sessionId": SESSION_ID,
            "title": "Untitled Session",
            "workspaceDirectory": WORKSPACE,
        }
        out.write(jsonlib.dumps(head, indent=True)[:-2] + b',\n  "history": [')
        first = True
        for item in _items(rng, target):
            body = jsonlib.dumps(item, indent=True).replace(b"\n", b"\n    ")
            out.write((b"\n    " if first else b",\n    ") + body)
            first = False
        usage = {"promptTokens": 123456, "completionTokens": 4567}
        out.write(
            b'\n  ],\n  "usage": '
            + jsonlib.dumps(usage, indent=True).replace(b"\n", b"\n  ")
            + b"\n}"
        )
    return path.stat().st_size


def make_store(root: Path, target: int, seed: int = 1) -> int:
    sessions = root / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    entry = {
        "sessionId": SESSION_ID,
        "title": "Untitled Session",
        "dateCreated": "1767225600000",
        "workspaceDirectory": WORKSPACE,
    }
    (sessions / "sessions.json").write_bytes(jsonlib.dumps([entry]))
    size = write_session(sessions / f"{SESSION_ID}.json", target, seed)
    os.utime(sessions / f"{SESSION_ID}.json", ns=(1767229200 * 10**9,) * 2)
    return size


def index_in_child(store: Path, home: Path) -> tuple[float, float, int, str]:
    """`deja index` in a fresh process: (wall seconds, CPU seconds, peak RSS bytes, output)."""
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(home),
        "DEJA_SEMANTIC": "0",
        "DEJA_MAX_SESSION_BYTES": str(1 << 62),
    }
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "deja", "index"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert child.stdout is not None
    output = child.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"deja index failed: {output}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, output


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].isalpha() else int(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100M,1G")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the generated stores")
    args = parser.parse_args(argv)
    work = args.out or Path(tempfile.mkdtemp(prefix="deja-big-"))
    try:
        for text in args.sizes.split(","):
            store = work / f"store-{text}"
            if not (store / "sessions" / f"{SESSION_ID}.json").exists():
                make_store(store, _size(text))
            size = (store / "sessions" / f"{SESSION_ID}.json").stat().st_size
            home = work / f"home-{text}"
            shutil.rmtree(home, ignore_errors=True)
            wall, cpu, rss, output = index_in_child(store, home)
            print(
                f"{text:>5} session ({size / 1e6:,.0f} MB): index {wall:.2f} s wall,"
                f" {cpu:.2f} s CPU, peak RSS {rss / 1e6:,.0f} MB"
            )
            print("      " + output.strip().replace("\n", "\n      "))
    finally:
        if not args.keep and args.out is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
