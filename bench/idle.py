"""An idle editor's cost: the CPU an idle `deja serve` (the sidecar) and `deja mcp` use, and how
soon a turn Continue writes is found by each, with the operating system's file notifications and
with polling.

    python bench/idle.py --size 5G --out /work/bench-out --home /tmp/me/home-words
    python bench/idle.py --size 4M --quick     # what `make bench-tiny` runs

For each door and mode, a child process is started on an index already built (`deja index` into
its own DEJA_HOME, once; words only unless `--meaning`) and awaited until it reports its first pass
done (the sidecar's work-done progress ends; the MCP server's search stops saying it is building).
Then its CPU time (`/proc/<pid>/stat` utime + stime, every thread, and any child process's) is
read over an idle window: % of a core. Then a turn holding a word found nowhere else is appended
to a ~1 MB session, rewritten in place as Continue does, and the door's own search is asked every
20 ms until it finds the word: the lag, from the start of the write; repeated with an idle gap
between (so polling has backed off, as in an editor left alone). Beside each lag, the door's CPU
time meanwhile less its searches' (measured alone before): the turn's cost, which the machine's
load does not stretch as it stretches the lag.

Polling is forced with `watchfiles` made unimportable in the child only: a directory holding a
`watchfiles.py` that raises ImportError goes first on its PYTHONPATH, which is the watcher's own
fallback when the library is absent. Which mode ran is checked, not assumed: an inotify
descriptor open in the child or not. The MCP server brings its index up to date before each
answer, so its lag is its answer's, not its watcher's; its idle figure is its watcher's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

from bench.make_store import parse_size  # noqa: E402
from bench.run import deja_env, ensure_store, load_average, session_files  # noqa: E402
from bench.sidecar_client import indexed_sidecar  # noqa: E402
from deja.mcp.tools import BUILDING  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
ASK_EVERY_S = 0.02
LAG_GIVE_UP_S = 60.0
NO_WATCHFILES = 'raise ImportError("watchfiles hidden by bench/idle.py: the watcher polls")\n'


def cpu_seconds(pid: int) -> float:
    """CPU time of `pid` (all its threads) and of its live descendants, in seconds."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    family, total = [pid], 0.0
    while family:
        member = family.pop()
        family += [child for child, parent in parents.items() if parent == member]
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
    return total


def notified(pid: int) -> bool:
    """Whether the process holds an inotify descriptor (Linux: how `watchfiles` watches)."""
    fds = Path(f"/proc/{pid}/fd")
    for fd in fds.iterdir():
        try:
            if os.readlink(fd) == "anon_inode:inotify":
                return True
        except OSError:
            continue
    return False


class Door:
    """A running front door: its process id, its own search, its end."""

    name = ""
    pid = 0

    async def open(self) -> None:
        raise NotImplementedError

    async def finds(self, word: str) -> bool:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class Sidecar(Door):
    name = "sidecar (deja serve)"

    def __init__(self, store: Path, home: Path, env: dict[str, str]) -> None:
        self.store, self.home, self.env = store, home, env

    async def open(self) -> None:
        self.client = await indexed_sidecar(self.store, self.home, env=self.env)
        server = self.client._server  # pygls keeps the process it started here
        assert server is not None
        self.pid = server.pid

    async def finds(self, word: str) -> bool:
        result: dict[str, Any] = await self.client.protocol.send_request_async(
            "deja/search", {"query": word, "scope": "all", "limit": 1}
        )
        return word in json.dumps(result["hits"])  # a hit by meaning alone does not hold it

    async def close(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call]


class Mcp(Door):
    name = "MCP (deja mcp)"

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log

    async def open(self) -> None:
        with self.log.open("wb") as errors:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                *("-m", "deja", "mcp"),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=errors,
                env=self.env,
            )
        self.pid = self.proc.pid
        self.last_id = 0
        version = {"protocolVersion": "2025-06-18", "capabilities": {}}
        await self.ask("initialize", {**version, "clientInfo": {"name": "bench", "version": "1"}})
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        while BUILDING in await self.search("deja"):  # the server's own word: first pass done
            await asyncio.sleep(0.1)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.last_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise RuntimeError("deja mcp ended (see its log)")
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == self.last_id:
                return answer

    async def search(self, word: str) -> str:
        arguments = {"query": word, "scope": "all", "limit": 1}
        answer = await self.ask("tools/call", {"name": "deja_search", "arguments": arguments})
        return str(answer["result"]["content"][0]["text"])

    async def finds(self, word: str) -> bool:
        text = await self.search(word)  # framed: "Nothing found: …" inside, when nothing is
        # The query is echoed quoted; a hit by meaning alone does not hold the word.
        return "\nNothing found: " not in text and word in text.replace(repr(word), "")

    async def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), timeout=60)


@dataclass(frozen=True)
class Measured:
    door: str
    mode: str
    idle_percent: float
    lags: list[float]
    lag_cpu: list[float]

    def line(self) -> str:
        lags = zip(self.lags, self.lag_cpu, strict=True)
        said = ", ".join(f"{t:.2f} s ({c:.2f} s CPU)" for t, c in lags)  # less its searches
        return f"{self.door}, {self.mode}: idle {self.idle_percent:.2f} %; lags {said}"


def add_turn(path: Path, word: str) -> None:
    """The session gains a turn holding `word`, the file rewritten in place as Continue does."""
    doc = orjson.loads(path.read_bytes())
    doc["history"].append(
        {"message": {"role": "user", "content": f"idle bench: {word}"}, "contextItems": []}
    )
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


async def lag(door: Door, session: Path, word: str, per_ask: float) -> tuple[float, float]:
    """Seconds from the start of the write until the door's search finds `word`, and the CPU
    seconds the door used meanwhile less what its searches cost (`per_ask` each)."""
    cpu, started, asks = cpu_seconds(door.pid), time.perf_counter(), 1
    add_turn(session, word)
    while not await door.finds(word):
        if time.perf_counter() - started > LAG_GIVE_UP_S:
            raise RuntimeError(f"{door.name} did not find {word} in {LAG_GIVE_UP_S:.0f} s")
        await asyncio.sleep(ASK_EVERY_S)  # how often the answer is asked for: the resolution
        asks += 1
    seconds = time.perf_counter() - started
    return seconds, cpu_seconds(door.pid) - cpu - asks * per_ask


async def cpu_per_ask(door: Door, asks: int = 25) -> float:
    """The door's CPU seconds for one search that finds nothing, nothing else changing (after
    one that loads what a search needs: the model, with meaning on)."""
    await door.finds(unique_word())
    before = cpu_seconds(door.pid)
    for _ in range(asks):
        word = unique_word()
        assert not await door.finds(word), f"{door.name} found {word}"
        await asyncio.sleep(ASK_EVERY_S)
    return (cpu_seconds(door.pid) - before) / asks


def unique_word() -> str:
    """Letters only, found nowhere in a generated store."""
    return "zqidle" + "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:12])


async def measure(door: Door, mode: str, session: Path, args: Any) -> Measured:
    await door.open()
    try:
        if notified(door.pid) != (mode == "notifications"):
            raise RuntimeError(f"{door.name} did not run with {mode} (inotify held: no)")
        before, started = cpu_seconds(door.pid), time.perf_counter()
        await asyncio.sleep(args.idle_seconds)  # the idle window measured
        used = cpu_seconds(door.pid) - before
        idle = used / (time.perf_counter() - started) * 100
        per_ask = await cpu_per_ask(door)
        lags: list[tuple[float, float]] = []
        for _ in range(args.lags):
            await asyncio.sleep(args.gap)  # idle again: polling backs off as when left alone
            lags.append(await lag(door, session, unique_word(), per_ask))
        return Measured(door.name, mode, idle, [t for t, _ in lags], [c for _, c in lags])
    finally:
        await door.close()


def build_index(store: Path, home: Path, semantic: str | None) -> None:
    """`deja index` into `home`, unless an index is there already."""
    if (home / "index.sqlite3").exists():
        return
    started = time.perf_counter()
    env = deja_env(store, home, semantic)
    subprocess.run([sys.executable, "-m", "deja", "index"], env=env, check=True)
    print(f"index built in {time.perf_counter() - started:.0f} s", flush=True)


async def run_all(store: Path, home: Path, work: Path, args: Any) -> list[Measured]:
    semantic = None if args.meaning else "0"
    shim = work / "no-watchfiles"
    shim.mkdir(exist_ok=True)
    (shim / "watchfiles.py").write_text(NO_WATCHFILES)
    files = session_files(store)
    session = min(files, key=lambda p: abs(p.stat().st_size - 1_000_000))
    results: list[Measured] = []
    for mode in args.modes.split(","):
        env = deja_env(store, home, semantic)
        if mode == "polling":
            env["PYTHONPATH"] = os.pathsep.join([str(shim), env["PYTHONPATH"]])
        doors: list[Door] = []
        if "sidecar" in args.doors:
            doors.append(Sidecar(store, home, env))
        if "mcp" in args.doors:
            doors.append(Mcp(env, work / f"mcp-{mode}.log"))
        for door in doors:
            results.append(await measure(door, mode, session, args))
            print(f"  {results[-1].line()}", flush=True)
    return results


def print_table(results: list[Measured]) -> None:
    table = [("door", "mode", "idle CPU", "lag p50 / max", "CPU per turn p50", "target")]
    for m in results:
        target = "≤ 1 % · ≤ 1 s" if m.mode == "notifications" else "≤ 5 % · ≤ 2 s"
        lags = f"{statistics.median(m.lags):.2f} / {max(m.lags):.2f} s"
        cpu = f"{statistics.median(m.lag_cpu):.2f} s"
        table.append((m.door, m.mode, f"{m.idle_percent:.2f} % of a core", lags, cpu, target))
    widths = [max(len(row[n]) for row in table) for n in range(len(table[0]))]
    for row in table:
        print("  " + "  ".join(cell.ljust(widths[n]) for n, cell in enumerate(row)).rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, help="a Continue store (default: a generated one)")
    parser.add_argument("--size", default="1G", help="the generated store's size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out", help="where stores live")
    parser.add_argument("--home", type=Path, help="DEJA_HOME (built once when empty)")
    parser.add_argument("--meaning", action="store_true", help="as installed: meaning on")
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--lags", type=int, default=5, help="how many turns are timed")
    parser.add_argument("--gap", type=float, default=5.0, help="idle seconds before each turn")
    parser.add_argument("--doors", default="sidecar,mcp")
    parser.add_argument("--modes", default="notifications,polling")
    parser.add_argument("--quick", action="store_true", help="3 s idle, 2 turns, short gaps")
    args = parser.parse_args()
    if args.quick:
        args.idle_seconds, args.lags, args.gap = 3.0, 2, 0.5
    store = args.store or ensure_store(parse_size(args.size), args.seed, args.out)
    work = Path(tempfile.mkdtemp(prefix="deja-idle-"))
    home = args.home or work / "home"
    started_load = load_average()
    print(f"load average at start: {started_load}", flush=True)
    try:
        build_index(store, home, None if args.meaning else "0")
        results = asyncio.run(run_all(store, home, work, args))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    files = session_files(store)
    size = sum(p.stat().st_size for p in files)
    meaning = "meaning on (as installed)" if args.meaning else "words only"
    print(f"\nidle doors · {store} · {size / 1e6:.0f} MB, {len(files)} sessions · {meaning}")
    turns = f"{args.lags} turns, {args.gap:.1f} s idle before each"
    print(f"{args.idle_seconds:.0f} s idle window; {turns}")
    print_table(results)
    print(f"\nload average (1, 5, 15 min): start {started_load} · end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
