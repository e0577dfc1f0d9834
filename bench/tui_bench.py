"""The history screen's speed (`deja.tui`): first screen after start, keystroke to updated hits
(and how many superseded searches were cancelled), and a large session opened at a turn.

    python bench/tui_bench.py [--bytes 100M] [--session-mb 60] [--keep DIR]

Headless (Textual's pilot, no terminal): the time to draw to a real terminal is not in these
figures. First screen: wall time from starting a fresh `python` process to the first search
answered and drawn (the start-up of the search path and Textual's). Keystrokes: each key of
the store's common queries typed one at a time, from the key to the hits redrawn; then bursts
of keys posted at once, where a later key's search cancels the earlier ones still waiting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.make_store import make_store, parse_size
from bench.session_view_bench import SESSION, big_history
from deja.query import History
from deja.tui.actions import pager
from deja.tui.app import DejaApp
from deja.tui.screens import SessionScreen

_FIRST_SCREEN = """
import asyncio, sys, time
from deja.query import History
from deja.tui.app import DejaApp

async def main():
    app = DejaApp(History(), cwd="/", all_workspaces=True)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.searches < 1:
            await asyncio.sleep(0.001)
        await pilot.pause()
        print(time.process_time(), time.time())
        app.workers.cancel_all()

asyncio.run(main())
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def first_screen(env: dict[str, str], rounds: int) -> tuple[list[float], list[float]]:
    """Wall times from starting `python` to the first screen, and that process's CPU times."""
    walls, cpus = [], []
    for _ in range(rounds):
        start = time.time()
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_SCREEN], env=env, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        cpu, end = map(float, done.stdout.split()[-2:])
        walls.append(end - start)
        cpus.append(cpu)
    return walls, cpus


async def keystrokes(history: History, queries: list[str]) -> dict[str, Any]:
    app = DejaApp(history, cwd="/", all_workspaces=True, index=False)
    latencies: list[float] = []
    cpu: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        for query in queries:
            for key in query:
                before = app.searches
                start, used = time.perf_counter(), time.process_time()
                await pilot.press(key if key != " " else "space")
                while app.searches == before:
                    await asyncio.sleep(0)
                await pilot.pause()
                latencies.append(time.perf_counter() - start)
                cpu.append(time.process_time() - used)
            await pilot.press(*["backspace"] * len(query))
            await app.workers.wait_for_complete()
        searches, asked = app.searches, app.asked
        for query in queries:  # bursts: every key of the query posted before any is handled
            for key in query:
                app.post_message(_key(key))
            await app.workers.wait_for_complete()
            await pilot.pause()
            for _ in query:
                app.post_message(_key("backspace"))
            await app.workers.wait_for_complete()
            await pilot.pause()
        burst_keys = 2 * sum(len(q) for q in queries)
        return {
            "latencies": latencies,
            "cpu": cpu,
            "burst_keys": burst_keys,
            "burst_searches": app.searches - searches,
            "burst_superseded": (app.asked - asked) - (app.searches - searches),
        }


def _key(character: str) -> Any:
    from textual import events

    if character == "backspace":
        return events.Key("backspace", None)
    return events.Key(character if character != " " else "space", character)


async def open_large(history: History, rounds: int) -> tuple[list[float], list[float]]:
    app = DejaApp(history, cwd="/", all_workspaces=True, index=False)
    turns = history.session_page(SESSION, offset=0, limit=1, at_turn=None).total_turns
    times, cpus = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        for round_ in range(rounds):
            at = turns * (round_ + 1) // (rounds + 1)
            start, used = time.perf_counter(), time.process_time()
            await app.push_screen(SessionScreen(pager(history, SESSION), at))
            await pilot.pause()
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - used)
            app.pop_screen()
            await pilot.pause()
    return times, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bytes", default="100M")
    parser.add_argument("--session-mb", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="deja-tui-bench-"))
    store = base / "continue"
    if not (store / "sessions").is_dir():
        made = make_store(store, parse_size(args.bytes))
        print(f"store: {made.sessions} sessions, {made.bytes / 1e6:.0f} MB")
    large = store / "sessions" / f"{SESSION}.json"
    if not large.exists():
        document = {"sessionId": SESSION, "title": "A long day", "workspaceDirectory": "/w",
                    "history": big_history(args.session_mb)}  # fmt: skip
        large.write_bytes(orjson.dumps(document))
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(store), "DEJA_HOME": str(base / "home"),
           "DEJA_SEMANTIC": "0"}  # fmt: skip
    history = History(home=base / "home", root=store)
    history.refresh()
    needles = json.loads((store / "needles.json").read_text())
    queries = [*(entry["query"] for entry in needles["common"][:6]), "kestrel harmonics"]
    try:
        shown = first_screen(env, args.rounds)
        typed = asyncio.run(keystrokes(history, queries))
        opened = asyncio.run(open_large(history, args.rounds))
    finally:
        history.close()
    report(shown, typed, opened, large.stat().st_size)


def report(
    shown: tuple[list[float], list[float]],
    typed: dict[str, Any],
    opened: tuple[list[float], list[float]],
    size: int,
) -> None:
    lat, cpu = typed["latencies"], typed["cpu"]
    ms = 1000
    print(f"load: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")
    print(
        f"first screen: median {statistics.median(shown[0]) * ms:.0f} ms wall, "
        f"{statistics.median(shown[1]) * ms:.0f} ms CPU, max {max(shown[0]) * ms:.0f} ms wall "
        f"({len(shown[0])} starts)"
    )
    print(
        f"keystroke → hits: p50 {percentile(lat, 0.5) * ms:.1f} ms, "
        f"p99 {percentile(lat, 0.99) * ms:.1f} ms wall; CPU p50 {percentile(cpu, 0.5) * ms:.1f} "
        f"ms, p99 {percentile(cpu, 0.99) * ms:.1f} ms ({len(lat)} keys)"
    )
    print(
        f"bursts: {typed['burst_keys']} keys → {typed['burst_searches']} searches answered, "
        f"{typed['burst_superseded']} superseded and cancelled"
    )
    print(
        f"{size / 2**20:.0f} MB session opened at a turn: median "
        f"{statistics.median(opened[0]) * ms:.0f} ms wall, {statistics.median(opened[1]) * ms:.0f}"
        f" ms CPU, max {max(opened[0]) * ms:.0f} ms wall"
    )


if __name__ == "__main__":
    main()
