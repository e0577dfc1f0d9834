"""The scale run of issue 16 (`bench/run.py --size 5G`, or `--scale` at any size): a generated
default-shape store of `--size` (≥ 12,000 sessions at 5 GB) beside a reference store of
`--scale-reference` (1 GB), both cold-indexed in the same process, so that the big store's time
is judged against the reference's scaled by bytes (linear: within 1.2×); then search in process
on the big index, and the sidecar's RSS after its first pass over the big store (a fresh home,
`deja serve` over stdio as an editor starts it). The stores are generated under `--out`
(bench/out, not committed); the scale run needs about 1.1× `--size` of disk for the store and
its index."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from bench import baselines
from bench.run import Row, ensure_store, ms, queries, session_files, timed
from bench.sidecar_client import indexed_sidecar
from deja.query import History, Scope, SearchQuery

SCALE_SESSIONS = 12_000  # issue 16: the 5 GB store holds at least this many sessions


def scale_rows(size: int, reference: int, seed: int, out: Path, quick: bool) -> list[Row]:
    big, small = ensure_store(size, seed, out), ensure_store(reference, seed, out)
    big_bytes, small_bytes = store_bytes(big), store_bytes(small)
    sessions = len(session_files(big))
    work = Path(tempfile.mkdtemp(prefix="deja-scale-"))
    try:
        small_s = cold(small, work / "reference")
        history = History(home=work / "big", root=big, exclude_path=work / "no-exclude")
        big_s = timed(history.refresh)
        linear = small_s * big_bytes / small_bytes
        words = queries(big)
        latencies = [
            timed(lambda q=word: history.search(SearchQuery(q, scope=Scope(), limit=20)))
            for word in (words * (2 if quick else 10))
        ]
        search = baselines.summarize(latencies)
        history.close()
        rss = asyncio.run(sidecar_rss_after_first_pass(big, work / "sidecar"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        (
            "store",
            f"{big_bytes / 1e6:.0f} MB, {sessions:,} sessions",
            f"≥ {SCALE_SESSIONS:,}",
            "",
            "",
        ),
        (
            "cold index",
            f"{big_s:.1f} s ({big_bytes / 1e6 / big_s:.0f} MB/s)",
            "≤ 1.2× linear",
            f"linear {linear:.1f} s",
            f"{big_s / linear:.2f}× linear",
        ),
        (
            "  reference store, cold",
            f"{small_s:.1f} s for {small_bytes / 1e6:.0f} MB",
            "",
            "",
            "",
        ),
        (
            "search in process",
            f"p50 {ms(search['p50'])}, p99 {ms(search['p99'])}",
            "p50 ≤ 3 ms",
            "",
            "",
        ),
        ("sidecar RSS after its first pass", f"{rss:.0f} MB", "≤ 150 MB", "", ""),
    ]


def store_bytes(store: Path) -> int:
    return sum(p.stat().st_size for p in session_files(store))


def cold(store: Path, home: Path) -> float:
    history = History(home=home, root=store, exclude_path=home.parent / "no-exclude")
    seconds = timed(history.refresh)
    history.close()
    return seconds


async def sidecar_rss_after_first_pass(store: Path, home: Path) -> float:
    """`deja serve` on `store` with an empty `home`: its VmRSS (MB) once the first pass ended."""
    client = await indexed_sidecar(store, home, timeout=7200)
    server = client._server  # pygls keeps the server's process here
    assert server is not None
    rss = vm_rss_mb(server.pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return rss


def vm_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
