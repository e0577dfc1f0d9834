"""Deja's bench: figures and ratios against baselines run in the same process.

    python bench/run.py --size 1G            # the figures in bench/RESULTS.md
    python bench/run.py --size 4M --quick    # what `make test` runs so the bench cannot rot

Measures, on a generated store (bench/make_store.py, deterministic): parse-only time (orjson
over every file: the floor), cold index, peak memory, a no-change pass, re-indexing one
rewritten ~1 MB session, search in process, `deja search` end to end, index size; the sidecar's
hover and `deja/search` round trips; per-line provenance of a 5,000-line file with 50 edits
(`bench/provenance_bench.py`); ripgrep over the store (no index) and deja-vu (the best-known
peer) on the same store.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

from bench import baselines, provenance_bench  # noqa: E402
from bench.make_store import make_store, parse_size  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402

Row = tuple[str, str, str]


def peak_rss_mb() -> float:
    status = Path("/proc/self/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+)", status)
    return int(found.group(1)) / 1024 if found else float("nan")


def session_files(store: Path) -> list[Path]:
    return sorted(p for p in (store / "sessions").glob("*.json") if p.name != "sessions.json")


def timed(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def ensure_store(size: int, seed: int, out: Path) -> Path:
    store = out / f"store-{size}-{seed}"
    if not (store / "needles.json").exists():
        shutil.rmtree(store, ignore_errors=True)
        store.mkdir(parents=True)
        stats = make_store(store, size, seed)
        print(
            f"generated {stats.sessions} sessions, {stats.bytes / 1e6:.0f} MB in "
            f"{stats.seconds:.1f} s",
            flush=True,
        )
    return store


def queries(store: Path) -> list[str]:
    needles = orjson.loads((store / "needles.json").read_bytes())
    found = [n["query"] for n in needles["needles"]] + [c["query"] for c in needles["common"]]
    return found


def rewrite_one_session(store: Path, target: int = 1_000_000) -> Path:
    """A ~1 MB session gains a turn, rewritten in place as Continue does."""
    files = session_files(store)
    path = min(files, key=lambda p: abs(p.stat().st_size - target))
    doc = orjson.loads(path.read_bytes())
    doc["history"].append(
        {"message": {"role": "user", "content": "bench: one more turn"}, "contextItems": []}
    )
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    return path


def end_to_end(store: Path, home: Path, query: str, runs: int) -> list[float]:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(home),
        "PYTHONPATH": str(HERE.parent / "server"),
    }
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "deja", "search", query, "--all", "--limit", "10"],
            env=env,
            check=True,
            capture_output=True,
        )
        samples.append(time.perf_counter() - started)
    return samples


async def sidecar_round_trips(
    store: Path, home: Path, history: History, runs: int
) -> tuple[list[float], list[float]]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("deja-bench", "1")
    indexed = asyncio.Event()

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(_params: Any) -> None:
        return None

    @client.feature(types.PROGRESS)
    def progress(params: Any) -> None:
        value = params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "end":
            indexed.set()

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(_params: Any) -> None:
        return None

    await client.start_io(
        sys.executable,
        "-m",
        "deja",
        "serve",
        env={**os.environ, "PYTHONPATH": str(HERE.parent / "server")},
    )
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True)
            ),
            initialization_options={
                "continueRoot": str(store),
                "dejaHome": str(home),
                "scope": "all",
            },
        )
    )
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(indexed.wait(), timeout=600)
    path = history.most_edited_file()
    events = [e for e in history.file_history(path, cwd="/") if e.hunks]
    document = "\n\n".join(w for e in events[:20] for _, w in e.hunks)
    uri = "file://" + path
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=document)
        )
    )
    lines = document.count("\n") + 1
    hover: list[float] = []
    for n in range(runs):
        started = time.perf_counter()
        await client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier(uri), types.Position(line=n % lines, character=0)
            )
        )
        hover.append(time.perf_counter() - started)
    search: list[float] = []
    words = queries(store)
    for n in range(runs):
        started = time.perf_counter()
        await client.protocol.send_request_async(
            "deja/search", {"query": words[n % len(words)], "scope": "all", "limit": 20}
        )
        search.append(time.perf_counter() - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return hover, search


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI)")
    parser.add_argument("--no-peer", action="store_true", help="skip deja-vu")
    args = parser.parse_args()
    size = parse_size(args.size)
    runs = 20 if args.quick else 200
    store = ensure_store(size, args.seed, args.out)
    files = session_files(store)
    store_bytes = sum(p.stat().st_size for p in files)
    words = queries(store)
    rows: list[Row] = []
    work = Path(tempfile.mkdtemp(prefix="deja-bench-"))
    try:
        for path in files:  # warm the page cache for every reader alike
            path.read_bytes()
        parse_s = timed(lambda: all(orjson.loads(p.read_bytes()) is not None for p in files))
        history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
        cold_s = timed(history.refresh)
        rss = peak_rss_mb()
        rows += [
            ("store", f"{store_bytes / 1e6:.0f} MB, {len(files)} sessions", ""),
            (
                "parse only (orjson, the floor)",
                f"{parse_s:.2f} s",
                f"{store_bytes / 1e6 / parse_s:.0f} MB/s",
            ),
            (
                "cold index",
                f"{cold_s:.2f} s",
                f"{store_bytes / 1e6 / cold_s:.0f} MB/s · {cold_s / parse_s:.2f}× parse (≤ 3×)",
            ),
            ("peak RSS (parse + index)", f"{rss:.0f} MB", "≤ 500 MB"),
        ]
        noop = sorted(timed(history.refresh) for _ in range(5))[2]
        rows.append(
            (
                "no-change pass",
                ms(noop),
                f"{noop * 1000 * 10_000 / max(len(files), 1):.1f} ms per 10,000 sessions (≤ 30)",
            )
        )
        rewritten = rewrite_one_session(store)
        one = timed(history.refresh)
        rows.append(
            (
                "re-index one rewritten session",
                ms(one),
                f"{rewritten.stat().st_size / 1e6:.2f} MB file (≤ 50 ms)",
            )
        )
        latencies = []
        for n in range(runs * 5):
            query = SearchQuery(words[n % len(words)], scope=Scope(), limit=20)
            latencies.append(timed(lambda q=query: history.search(q)))  # type: ignore[misc]
        ours = baselines.summarize(latencies)
        rows.append(
            (
                "search in process",
                f"p50 {ms(ours['p50'])}",
                f"p99 {ms(ours['p99'])} (≤ 2 / ≤ 20 ms)",
            )
        )
        e2e = baselines.summarize(
            end_to_end(store, work / "home", words[0], 10 if args.quick else 30)
        )
        rows.append(
            (
                "`deja search` end to end",
                f"p50 {ms(e2e['p50'])}",
                f"p99 {ms(e2e['p99'])} (p50 ≤ 150 ms)",
            )
        )
        index_bytes = history.stats().index_bytes
        rows.append(
            (
                "index size",
                f"{index_bytes / 1e6:.1f} MB",
                f"{index_bytes / store_bytes:.1%} of the store (≤ 15 %)",
            )
        )
        hover, lsp_search = asyncio.run(sidecar_round_trips(store, work / "home", history, runs))
        hover_s, lsp_s = baselines.summarize(hover), baselines.summarize(lsp_search)
        rows.append(
            ("sidecar hover", f"p50 {ms(hover_s['p50'])}", f"p99 {ms(hover_s['p99'])} (≤ 10 ms)")
        )
        rows.append(
            (
                "sidecar `deja/search` round trip",
                f"p50 {ms(lsp_s['p50'])}",
                f"p99 {ms(lsp_s['p99'])} (p50 ≤ 20 ms)",
            )
        )
        history.close()
        rows += provenance_bench.rows(quick=args.quick)

        rg = shutil.which("rg")
        if rg:
            rg_runs = 1 if args.quick else 3
            rg_s = baselines.summarize(
                [t for word in words[:8] for t in baselines.rg_latencies(store, word, rg_runs)]
            )
            rows.append(
                (
                    "ripgrep over the store (no index)",
                    f"p50 {ms(rg_s['p50'])}",
                    f"{rg_s['p50'] / ours['p50']:.0f}× our in-process p50; "
                    f"{rg_s['p50'] / e2e['p50']:.2f}× our end to end",
                )
            )
        else:
            rows.append(("ripgrep", "not installed", "apt-get install -y ripgrep"))
        if not args.no_peer:
            peer_home = work / "peer"
            peer_home.mkdir()
            peer_cold = baselines.deja_vu_cold_index(store, peer_home)
            peer_noop = baselines.deja_vu_noop_index(store, peer_home)
            peer = baselines.summarize(
                baselines.deja_vu_search_latencies(
                    store, peer_home, words[:8], 1 if args.quick else 3
                )
            )
            rows += [
                ("deja-vu cold index", f"{peer_cold:.2f} s", f"ours {cold_s / peer_cold:.2f}×"),
                ("deja-vu no-change pass", ms(peer_noop), f"ours {noop / peer_noop:.2f}×"),
                (
                    "deja-vu search (process, p50)",
                    ms(peer["p50"]),
                    f"ours end to end {e2e['p50'] / peer['p50']:.2f}×",
                ),
            ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    print(f"\nDeja bench · {args.size} store · seed {args.seed} · {os.cpu_count()} cores")
    for name, figure, note in rows:
        print(f"  {name:<{width}}  {figure:>16}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
