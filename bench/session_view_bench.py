"""The session view's first page against the whole session document (issue 15), on one generated
session of about 60 MB (a command with a 40 KB output per step, as a long `cn` day writes).

    python bench/session_view_bench.py [--mb 60] [--rounds 5] [--keep DIR]

Prints, alternating the two in the same process (CPU time by `time.process_time`, the wall
time beside it): `deja/session`'s path — every record read, the whole Markdown document made (what
VS Code's Markdown preview would then have to render) — and `deja/sessionView`'s first page of 40
turns as the JSON the sidecar sends; their sizes, and the ratio of their CPU times.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deja import render_markdown
from deja.query import History
from deja.wire import session_page_json

SESSION = "5e55101f-0000-4000-8000-000000000060"


def big_history(megabytes: int) -> list[dict[str, Any]]:
    output = ("x" * 199 + "\n") * 200
    history: list[dict[str, Any]] = []
    step = 0
    while len(history) // 3 * (len(output) + 400) < megabytes * 1024 * 1024:
        command = f"python refactor.py module_{step}"
        call = {
            "id": f"c{step}",
            "type": "function",
            "function": {"name": "Bash", "arguments": orjson.dumps({"command": command}).decode()},
        }
        state = {
            "toolCallId": f"c{step}",
            "toolCall": call,
            "status": "done",
            "parsedArgs": {"command": command},
            "output": [{"content": output, "name": "Tool Result", "description": "result"}],
        }
        history += [
            {
                "message": {"role": "user", "content": f"step {step}: refactor module {step}"},
                "contextItems": [],
            },
            {
                "message": {"role": "assistant", "content": "", "toolCalls": [call]},
                "contextItems": [],
                "toolCallStates": [state],
            },
            {
                "message": {"role": "assistant", "content": f"Module {step} is refactored."},
                "contextItems": [],
            },
        ]
        step += 1
    return history


def timed(work: Callable[[], int]) -> tuple[float, float, int]:
    cpu, wall = time.process_time(), time.perf_counter()
    size = work()
    return time.process_time() - cpu, time.perf_counter() - wall, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="deja-session-view-"))
    store = base / "continue"
    (store / "sessions").mkdir(parents=True, exist_ok=True)
    path = store / "sessions" / f"{SESSION}.json"
    document = {
        "sessionId": SESSION,
        "title": "A long day",
        "workspaceDirectory": "/w",
        "history": big_history(args.mb),
    }
    path.write_bytes(orjson.dumps(document))
    history = History(home=base / "home", root=store)
    try:
        history.refresh()

        def whole() -> int:
            return len(render_markdown.session(history.show(SESSION)))

        def page() -> int:
            first = history.session_page(SESSION, offset=None, limit=40, at_turn=None)
            return len(orjson.dumps(session_page_json(first)))

        runs: dict[str, list[tuple[float, float, int]]] = {"whole": [], "page": []}
        for _ in range(args.rounds):
            runs["whole"].append(timed(whole))
            runs["page"].append(timed(page))
        print(f"session file: {path.stat().st_size / 2**20:.1f} MB")
        for name, label in (
            ("whole", "whole document (deja/session's markdown)"),
            ("page", "first page (deja/sessionView, 40 turns)"),
        ):
            cpu = statistics.median(run[0] for run in runs[name])
            wall = statistics.median(run[1] for run in runs[name])
            sent = runs[name][0][2] / 2**20
            print(
                f"{label}: median CPU {cpu * 1000:.1f} ms, wall {wall * 1000:.1f} ms, {sent:.2f} MB"
            )
        ratio = statistics.median(r[0] for r in runs["whole"]) / statistics.median(
            r[0] for r in runs["page"]
        )
        print(f"CPU ratio whole / first page: {ratio:.0f}x")
    finally:
        history.close()
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
