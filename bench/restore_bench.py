"""How fast `deja restore` answers: a 60 MB session cold and from cache, and the listing of a
workspace with 10,000 sessions.

    python bench/restore_bench.py [--mb 60] [--sessions 10000] [--keep DIR]

Targets (issue 7): restore ≤ 1 s cold and ≤ 50 ms from cache; listing ≤ 100 ms. The stores are
generated here (CLI-shaped, so tool output and edits reach the index: the heavy case for restore)
and indexed first; only `History.restore` is timed. The big session's workspace is a real git
repository, so the closing block's `git log` is part of every restore timed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from deja.query import History

T0 = 1_750_262_400  # 2025-06-18T16:00:00Z


def _state(call_id: str, name: str, args: dict[str, Any], output: str, status: str = "done") -> Any:
    # The CLI stores arguments three times: the call's JSON text, `parsedArgs`, message.toolCalls.
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": orjson.dumps(args).decode()},
    }
    return {
        "toolCallId": call_id,
        "toolCall": call,
        "status": status,
        "parsedArgs": args,
        "output": [
            {"content": output, "name": "Tool Result", "description": "Tool execution result"}
        ],
    }


def _turn(n: int) -> list[Any]:
    module = f"src/module_{n % 40}.py"
    code = "\n".join(f"    value_{i} = compute_{i}(value_{i - 1})  # step {i}" for i in range(40))
    listing = "\n".join(f"tests/test_{n}.py::test_case_{i} PASSED [{i}%]" for i in range(600))
    answer = (
        f"Turn {n}: I looked at {module} and the failing test.\n\n"
        f"```python\ndef f():\n{code}\n```\n"
        "\n| step | result |\n|---|---|\n| build | ok |\n| test | failing |\n\n"
        "- first finding\n- second finding\n\nThe retry loop now backs off. " * 3
    )
    states = [
        _state(f"c{n}a", "Read", {"filepath": module}, f"Content of {module}:\n{code}\n" * 8),
        _state(f"c{n}b", "Bash", {"command": f"pytest tests/test_{n}.py -q"}, listing),
        _state(
            f"c{n}c",
            "Edit",
            {"file_path": module, "old_string": code, "new_string": code.replace("step", "st")},
            f"Successfully edited {module}\nDiff:\n" + code,
        ),
    ]
    return [
        {
            "message": {"role": "user", "content": f"Request {n}: fix test_{n} in {module}."},
            "contextItems": [],
        },
        {
            "message": {
                "role": "assistant",
                "content": answer,
                "toolCalls": [s["toolCall"] for s in states],
            },
            "contextItems": [],
            "toolCallStates": states,
        },
    ]


def write_session(
    folder: Path, session_id: str, history: list[Any], workspace: str, day: int
) -> dict[str, str]:
    path = folder / f"{session_id}.json"
    title = f"Session {session_id[:8]}"
    doc = {
        "sessionId": session_id,
        "title": title,
        "workspaceDirectory": workspace,
        "history": history,
        "usage": {},
    }
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    os.utime(path, (T0 + day * 3_600 + 1_800,) * 2)
    return {
        "sessionId": session_id,
        "title": title,
        "dateCreated": str((T0 + day * 3_600) * 1000),
        "workspaceDirectory": workspace,
    }


def big_session(folder: Path, workspace: str, megabytes: int) -> tuple[str, int]:
    history: list[Any] = []
    turn = 0
    size = 0
    target = megabytes * 1_000_000
    while size < target:
        history += _turn(turn)
        turn += 1
        if turn % 50 == 0:  # estimate the size now and then, not every turn
            size = len(orjson.dumps(history, option=orjson.OPT_INDENT_2))
    session_id = "b16b16b1-0000-4000-8000-000000000000"
    entry = write_session(folder, session_id, history, workspace, 0)
    (folder / "sessions.json").write_bytes(orjson.dumps([entry]))
    # A newer session makes the big one #1 (not the current session).
    entry2 = write_session(folder, "c0c0c0c0-0000-4000-8000-000000000000", _turn(0), workspace, 1)
    (folder / "sessions.json").write_bytes(orjson.dumps([entry, entry2]))
    return session_id, (folder / f"{session_id}.json").stat().st_size


def many_sessions(folder: Path, workspace: str, count: int) -> None:
    entries = []
    for n in range(count):
        history = [
            {
                "message": {"role": "user", "content": f"Request {n}: small task"},
                "contextItems": [],
            },
            {"message": {"role": "assistant", "content": f"Done with {n}."}, "contextItems": []},
        ]
        entries.append(
            write_session(folder, f"{n:08x}-0000-4000-8000-000000000000", history, workspace, n)
        )
    (folder / "sessions.json").write_bytes(orjson.dumps(entries))


def timed(action: Callable[[], object], runs: int) -> float:
    """Median wall time in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=60, help="size of the big session")
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions to list")
    parser.add_argument("--keep", type=Path, help="work here and leave it (default: a temp dir)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="deja-restore-bench-"))
    try:
        return run(base, args.mb, args.sessions)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


def run(base: Path, megabytes: int, count: int) -> int:
    # 1. A 60 MB session in a git workspace.
    workspace = base / "repo"
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, capture_output=True)
    git_commits(workspace)
    store = base / "big" / "sessions"
    store.mkdir(parents=True)
    started = time.perf_counter()
    _, size = big_session(store, str(workspace), megabytes)
    history = History(home=base / "big-home", root=store.parent)
    history.refresh()
    print(
        f"big session: {size / 1e6:.1f} MB, generated and indexed in "
        f"{time.perf_counter() - started:.1f} s"
    )
    cache = history.home / "restore-cache"

    def cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        history.restore("1", cwd=str(workspace))

    result = history.restore("1", cwd=str(workspace))
    lines = result.text.count("\n")
    cold_ms = timed(cold, 5)
    history.restore("1", cwd=str(workspace))
    warm_ms = timed(lambda: history.restore("1", cwd=str(workspace)), 20)
    topic_ms = timed(lambda: history.restore("1 : retry backoff", cwd=str(workspace)), 5)
    history.close()
    print(
        f"restore {size / 1e6:.0f} MB session, cold:       {cold_ms:8.1f} ms  (target ≤ 1000; "
        f"{lines} transcript lines, {len(result.text) / 1e3:.0f} KB)"
    )
    print(f"restore {size / 1e6:.0f} MB session, from cache: {warm_ms:8.1f} ms  (target ≤ 50)")
    print(f"restore with a topic (no cache):   {topic_ms:8.1f} ms")

    # 2. 10,000 sessions in one workspace.
    many = base / "many" / "sessions"
    many.mkdir(parents=True)
    started = time.perf_counter()
    many_sessions(many, "/bench/proj", count)
    history = History(home=base / "many-home", root=many.parent)
    history.refresh()
    print(f"{count} sessions generated and indexed in {time.perf_counter() - started:.1f} s")
    page_ms = timed(lambda: history.restore(cwd="/bench/proj"), 20)
    full = history.restore(cwd="/bench/proj", limit=count)
    all_ms = timed(lambda: history.restore(cwd="/bench/proj", limit=count), 5)
    history.close()
    print(f"list {count} sessions, first page:  {page_ms:8.1f} ms  (target ≤ 100)")
    print(f"list {count} sessions, all rows:    {all_ms:8.1f} ms  ({len(full.listing)} rows)")
    return 0


def git_commits(path: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for date in ("2025-06-18T16:10:00Z", "2025-06-18T16:20:00Z"):
        (path / "a.txt").write_text(date)
        for args in (["add", "a.txt"], ["commit", "-qm", f"work at {date}"]):
            subprocess.run(
                ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", str(path), *args],
                check=True,
                env=env | {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
                capture_output=True,
            )


if __name__ == "__main__":
    sys.exit(main())
