"""An idle sidecar with search by meaning's deep model: `bench/idle.py`'s measure on a sidecar
whose background pass has read every record with the deep model first.

    python bench/idle_deep.py --store /work/bench-out/store-cli-161061273-1
    python bench/idle_deep.py --size 24M --shape cli   # a store the pass reads in minutes
    python bench/idle_deep.py --size 4M --quick

The index is built fresh into a temporary home (`deja index`, meaning on as installed: the
static model's vectors, no deep one yet). A sidecar (`deja serve`, the operating system's file
notifications) is started on it and awaited until its first pass is done; from then on its deep
pass runs (one thread at the lowest priority) until the sidecar logs that the deep model has read
every record. Meanwhile its CPU time is sampled: the share of a core the pass takes, and CPU per
record (the process's CPU time over the pass, the model's load included, divided by the records
it reports). Then, as `idle.py`: the CPU of an idle window, and for each turn written to a ~1 MB
session the lag until the sidecar's search finds it, and further until the deep model has read
what the turn changed (the sidecar logs it again, with how many records it read). The turns are
written into the store, as `idle.py` writes them: give a copy of a store shared with others.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

from bench.idle import (  # noqa: E402
    Sidecar,
    build_index,
    cpu_per_ask,
    cpu_seconds,
    lag,
    notified,
    unique_word,
)
from bench.make_store import parse_size  # noqa: E402
from bench.run import deja_env, ensure_store, load_average, session_files  # noqa: E402
from deja.live_deep import CAUGHT_UP as DEEP_CAUGHT_UP  # noqa: E402

CAUGHT_UP = DEEP_CAUGHT_UP.split("{")[0]
# How often the sidecar's CPU time is read while the deep pass runs.
SAMPLE_S = 15.0
DEEP_GIVE_UP_S = 3 * 3600.0


class DeepSidecar(Sidecar):
    """The sidecar, told apart each time it logs that the deep model has caught up."""

    def __init__(self, store: Path, home: Path, env: dict[str, str]) -> None:
        super().__init__(store, home, env)
        self.caught_up = asyncio.Event()
        self.records = 0

    async def open(self) -> None:
        from bench.sidecar_client import indexed_sidecar

        def heard(line: str) -> None:
            if CAUGHT_UP in line:
                found = re.search(r"\((\d[\d,]*) record", line)
                self.records = int(found.group(1).replace(",", "")) if found else 0
                self.caught_up.set()

        self.client = await indexed_sidecar(self.store, self.home, env=self.env, on_log=heard)
        server = self.client._server
        assert server is not None
        self.pid = server.pid


@dataclass(frozen=True)
class DeepPass:
    records: int
    wall_s: float
    cpu_s: float
    shares: list[float]  # % of a core in each sample

    def line(self) -> str:
        per_record = self.cpu_s / max(self.records, 1) * 1000
        spread = f"{min(self.shares):.0f}–{max(self.shares):.0f} %" if self.shares else "—"
        return (
            f"deep pass: {self.records} records in {self.wall_s:.0f} s wall, {self.cpu_s:.0f} s CPU"
            f" ({per_record:.1f} ms a record); {self.cpu_s / self.wall_s * 100:.0f} % of a core"
            f" (samples of {SAMPLE_S:.0f} s: {spread})"
        )


async def deep_pass(door: DeepSidecar) -> DeepPass:
    """From the first pass's end until the deep model has read every record."""
    started, cpu = time.perf_counter(), cpu_seconds(door.pid)
    shares: list[float] = []
    last_t, last_cpu = started, cpu
    while not door.caught_up.is_set():
        try:
            await asyncio.wait_for(door.caught_up.wait(), timeout=SAMPLE_S)
        except TimeoutError:
            if time.perf_counter() - started > DEEP_GIVE_UP_S:
                raise RuntimeError("the deep pass did not end") from None
        now, used = time.perf_counter(), cpu_seconds(door.pid)
        if now - last_t >= SAMPLE_S / 2:
            shares.append((used - last_cpu) / (now - last_t) * 100)
        last_t, last_cpu = now, used
    return DeepPass(door.records, last_t - started, last_cpu - cpu, shares)


@dataclass(frozen=True)
class Turn:
    found_s: float  # until the door's search finds the turn's word
    found_cpu_s: float  # the door's CPU meanwhile, less its searches'
    deep_s: float  # until the deep model has read what the turn changed
    deep_cpu_s: float
    deep_records: int


async def turn(door: DeepSidecar, session: Path, per_ask: float) -> Turn:
    door.caught_up.clear()
    started, cpu = time.perf_counter(), cpu_seconds(door.pid)
    found_s, found_cpu = await lag(door, session, unique_word(), per_ask)
    await asyncio.wait_for(door.caught_up.wait(), timeout=DEEP_GIVE_UP_S)
    deep_s, deep_cpu = time.perf_counter() - started, cpu_seconds(door.pid) - cpu
    return Turn(found_s, found_cpu, deep_s, deep_cpu, door.records)


async def measure(
    door: DeepSidecar, session: Path, args: Any
) -> tuple[DeepPass, float, list[Turn]]:
    await door.open()
    try:
        if not notified(door.pid):
            raise RuntimeError(f"{door.name} did not watch with file notifications")
        passed = await deep_pass(door)
        print(f"  {passed.line()}", flush=True)
        before, started = cpu_seconds(door.pid), time.perf_counter()
        await asyncio.sleep(args.idle_seconds)
        idle = (cpu_seconds(door.pid) - before) / (time.perf_counter() - started) * 100
        per_ask = await cpu_per_ask(door)
        turns: list[Turn] = []
        for _ in range(args.lags):
            await asyncio.sleep(args.gap)
            turns.append(await turn(door, session, per_ask))
        return passed, idle, turns
    finally:
        await door.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, help="a Continue store (default: a generated one)")
    parser.add_argument("--size", default="4M", help="the generated store's size")
    parser.add_argument("--shape", default="default", help="the generated store's shape (cli)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out", help="where stores live")
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--lags", type=int, default=5, help="how many turns are timed")
    parser.add_argument("--gap", type=float, default=5.0, help="idle seconds before each turn")
    parser.add_argument("--quick", action="store_true", help="3 s idle, 2 turns, short gaps")
    args = parser.parse_args()
    if args.quick:
        args.idle_seconds, args.lags, args.gap = 3.0, 2, 0.5
    store = args.store or ensure_store(parse_size(args.size), args.seed, args.out, args.shape)
    work = Path(tempfile.mkdtemp(prefix="deja-idle-deep-"))
    home = work / "home"
    started_load = load_average()
    print(f"load average at start: {started_load}", flush=True)
    try:
        build_index(store, home, None)
        env = deja_env(store, home, None)
        files = session_files(store)
        session = min(files, key=lambda p: abs(p.stat().st_size - 1_000_000))
        door = DeepSidecar(store, home, env)
        passed, idle, turns = asyncio.run(measure(door, session, args))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size = sum(p.stat().st_size for p in files)
    print(f"\nidle sidecar, deep model on · {store} · {size / 1e6:.0f} MB, {len(files)} sessions")
    print(f"  {passed.line()}")
    print(f"  idle after it: {idle:.2f} % of a core over {args.idle_seconds:.0f} s")
    for n, t in enumerate(turns, 1):
        print(
            f"  turn {n}: found by words {t.found_s:.2f} s ({t.found_cpu_s:.2f} s CPU); read by the"
            f" deep model {t.deep_s:.2f} s ({t.deep_cpu_s:.2f} s CPU, {t.deep_records} records)"
        )
    if turns:
        found = statistics.median(t.found_s for t in turns)
        deep = statistics.median(t.deep_s for t in turns)
        print(f"  p50: found {found:.2f} s, read by the deep model {deep:.2f} s")
    print(f"\nload average (1, 5, 15 min): start {started_load} · end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
