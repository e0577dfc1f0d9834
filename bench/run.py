"""Deja's bench: figures and ratios against baselines run in the same process.

    python bench/run.py --size 1G            # the figures in bench/RESULTS.md
    python bench/run.py --size 4M --quick    # what `make test` runs so the bench cannot rot
    python bench/run.py --only search --size 5G   # `deja search` alone, both modes, the peer

Measures, on two generated stores (bench/make_store.py, deterministic): the default shape at
`--size` and the CLI-heavy shape at `--cli-size` (15 % of it unless given). On each: parse-only
time (orjson over every file: the floor), cold index, peak memory, a no-change pass (in process
and as `deja index`), re-indexing one rewritten ~1 MB session, search in process, `deja search`
end to end, index size; the sidecar's hover and `deja/search` round trips; ripgrep over the
store (no index) and deja-vu (the best-known peer) on the same store; then, once, per-line
provenance of a 5,000-line file with 50 edits (`bench/provenance_bench.py`). Everything runs words
only (`DEJA_SEMANTIC=0`) but the rows that say "meaning on": those run Deja as `make demo` installs
it, with its own index made with vectors, and `deja search` there is timed over the peer's
queries beside the words-only figure. Each figure is printed
beside issue 16's target and the peer's figure from the same run, with the ratio; the load
average is printed at the start and end. Same-run A/B rows measure each lever (one transaction
per session against batches; the pass against the stamp check that lets `deja search` skip it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
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
from bench.sidecar_client import indexed_sidecar  # noqa: E402
from deja import jsonlib  # noqa: E402
from deja.index import batch, reader_pool  # noqa: E402
from deja.jsonlib import stdlib_loads  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402

# (figure, ours, target, the peer's, ours ÷ peer's)
Row = tuple[str, str, str, str, str]


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


def ensure_store(size: int, seed: int, out: Path, shape: str = "default") -> Path:
    store = out / (f"store-{size}-{seed}" if shape == "default" else f"store-{shape}-{size}-{seed}")
    if not (store / "needles.json").exists():
        shutil.rmtree(store, ignore_errors=True)
        store.mkdir(parents=True)
        stats = make_store(store, size, seed, shape=shape)
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


def deja_process(
    store: Path, home: Path, words: list[str], runs: int, semantic: str | None = "0"
) -> list[float]:
    """Wall-clock seconds of `deja WORDS…` as a process, `runs` times (one untimed first);
    `semantic` is `DEJA_SEMANTIC` (None: unset, as installed)."""
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(home),
        "PYTHONPATH": str(HERE.parent / "server"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its .pyc files
    env.pop("DEJA_SEMANTIC", None)
    if semantic is not None:
        env["DEJA_SEMANTIC"] = semantic
    samples = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "deja", *words], env=env, check=True, capture_output=True
        )
        samples.append(time.perf_counter() - started)
    return samples[1:]


def end_to_end(
    store: Path, home: Path, queries: list[str], runs: int, semantic: str | None
) -> list[float]:
    """`deja search` as a process over `queries`, as the peer's search is timed."""
    return [
        seconds
        for query in queries
        for seconds in deja_process(
            store, home, ["search", query, "--all", "--limit", "10"], runs, semantic
        )
    ]


async def sidecar_round_trips(
    store: Path, home: Path, history: History, runs: int
) -> tuple[list[float], list[float]]:
    from lsprotocol import types

    client = await indexed_sidecar(store, home)
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


def cold_index(store: Path, work: Path, name: str, sessions_per_commit: int | None) -> float:
    """A cold pass into a fresh home; `sessions_per_commit=1` is the one-transaction-per-session
    pass before batching (the A/B of that lever)."""
    saved = batch.BATCH_SESSIONS
    batch.BATCH_SESSIONS = sessions_per_commit or saved
    try:
        history = History(home=work / name, root=store, exclude_path=work / "no-exclude")
        seconds = timed(history.refresh)
        history.close()
        return seconds
    finally:
        batch.BATCH_SESSIONS = saved


def cold_cpu(store: Path, work: Path, *, workers: bool) -> tuple[float, float, float]:
    """A cold pass reading in process or with the reader workers (`index/reader_pool.py`,
    whatever the store's size): wall seconds, this process's CPU, the workers' CPU."""
    saved = reader_pool.PARALLEL_MIN_BYTES
    reader_pool.PARALLEL_MIN_BYTES = 0 if workers else 1 << 62
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        history = History(
            home=work / f"ab-workers-{workers}", root=store, exclude_path=work / "no-exclude"
        )
        cpu = time.process_time()
        wall = timed(history.refresh)
        cpu = time.process_time() - cpu
        history.close()
    finally:
        reader_pool.PARALLEL_MIN_BYTES = saved
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return wall, cpu, worker


def ratio(ours: float, peer: float) -> str:
    return f"{ours / peer:.2f}×" if peer > 0 else "—"


def bench_store(store: Path, args: argparse.Namespace, work: Path) -> list[Row]:
    runs = 20 if args.quick else 200
    files = session_files(store)
    store_bytes = sum(p.stat().st_size for p in files)
    mb = store_bytes / 1e6
    words = queries(store)
    rows: list[Row] = []
    for path in files:  # warm the page cache for every reader alike
        path.read_bytes()
    parse_s = timed(lambda: all(orjson.loads(p.read_bytes()) is not None for p in files))
    # What the VS Code extension's universal package (no orjson) pays to read the store.
    stdlib_s = timed(lambda: all(stdlib_loads(p.read_bytes()) is not None for p in files))
    history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
    cold_s = timed(history.refresh)
    rss = peak_rss_mb()
    fallback_s = cold_index_without_orjson(store, work)
    per_session_s = cold_index(store, work, "ab-per-session", 1)
    batched_s = cold_index(store, work, "ab-batched", None)
    serial_cpu, worker_cpu = (
        cold_cpu(store, work, workers=False),
        cold_cpu(store, work, workers=True),
    )
    peer = PeerFigures(store, work, words, args)
    rows += [
        ("store", f"{mb:.0f} MB, {len(files)} sessions", "", "", ""),
        ("parse only (orjson, the floor)", f"{parse_s:.2f} s", f"{mb / parse_s:.0f} MB/s", "", ""),
        (
            "cold index",
            f"{cold_s:.2f} s, {mb / cold_s:.0f} MB/s",
            "≤ ⅓ peer's; ≥ 150 MB/s (1 GB)",
            f"{peer.cold:.2f} s" if peer.cold else "—",
            ratio(cold_s, peer.cold),
        ),
        ("cold index ÷ parse only", f"{cold_s / parse_s:.2f}×", "", "", ""),
        (
            "parse only, stdlib json (no orjson)",
            f"{stdlib_s:.2f} s",
            f"{stdlib_s / parse_s:.2f}× orjson",
            "",
            "",
        ),
        (
            "cold index without orjson (universal .vsix)",
            f"{fallback_s:.2f} s",
            f"{fallback_s / cold_s:.2f}× with orjson",
            "",
            "",
        ),
        ("peak RSS (parse + index)", f"{rss:.0f} MB", "≤ 200 MB", "", ""),
        (
            "A/B cold: one transaction per session → batches",
            f"{per_session_s:.2f} s → {batched_s:.2f} s",
            "",
            "",
            ratio(batched_s, per_session_s),
        ),
        (
            "A/B cold: read in process → reader workers (wall; CPU this + workers)",
            f"{serial_cpu[0]:.2f} s → {worker_cpu[0]:.2f} s; CPU {serial_cpu[1]:.2f} → "
            f"{worker_cpu[1]:.2f} + {worker_cpu[2]:.2f} s",
            "",
            "",
            ratio(worker_cpu[0], serial_cpu[0]),
        ),
    ]
    noop = sorted(timed(history.refresh) for _ in range(5))[2]
    stamp = sorted(timed(history.store_unchanged) for _ in range(5))[2]
    per_10k = 10_000 / max(len(files), 1)
    noop_process = baselines.summarize(deja_process(store, work / "home", ["index"], 5))["p50"]
    rows += [
        (
            "no-change pass, in process",
            f"{ms(noop)} ({noop * 1000 * per_10k:.1f} ms / 10k)",
            "≤ 20 ms / 10k",
            "",
            "",
        ),
        (
            "`deja index`, nothing changed (process)",
            ms(noop_process),
            "≤ 0.5× peer's",
            ms(peer.noop) if peer.noop else "—",
            ratio(noop_process, peer.noop),
        ),
        (
            "A/B no-change: the pass → the stamp check",
            f"{ms(noop)} → {ms(stamp)}",
            "",
            "",
            ratio(stamp, noop),
        ),
    ]
    rewritten = rewrite_one_session(store)
    one = timed(history.refresh)
    rows.append(
        (
            "re-index one rewritten session",
            f"{ms(one)} ({rewritten.stat().st_size / 1e6:.2f} MB)",
            "≤ 20 ms",
            "",
            "",
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
            f"p50 {ms(ours['p50'])}, p99 {ms(ours['p99'])}",
            "p50 ≤ 1, p99 ≤ 10 ms",
            "",
            "",
        )
    )
    history.refresh()  # the rewrite above was indexed; this pass records the stamp
    search, e2e_p50 = search_rows(store, work, words, peer.search, args)
    rows += search
    index_bytes = history.stats().index_bytes
    rows.append(
        (
            "index size",
            f"{index_bytes / 1e6:.1f} MB, {index_bytes / store_bytes:.1%} of the store",
            "≤ 10 % (1 GB), ≤ 20 % (CLI-heavy)",
            "",
            "",
        )
    )
    hover, lsp_search = asyncio.run(sidecar_round_trips(store, work / "home", history, runs))
    hover_s, lsp_s = baselines.summarize(hover), baselines.summarize(lsp_search)
    rows += [
        (
            "sidecar hover",
            f"p50 {ms(hover_s['p50'])}, p99 {ms(hover_s['p99'])}",
            "p99 ≤ 5 ms",
            "",
            "",
        ),
        (
            "sidecar `deja/search` round trip",
            f"p50 {ms(lsp_s['p50'])}, p99 {ms(lsp_s['p99'])}",
            "p50 ≤ 3 ms",
            "",
            "",
        ),
    ]
    history.close()
    rows.append(ripgrep_row(store, words, ours["p50"], e2e_p50, args.quick))
    return rows


# A question whose words are not all in any record of a generated store: meaning joins, and the
# model and the vectors load in the `deja search` process.
MEANING_QUESTION = "how did we make the slow nightly build faster"


def search_rows(
    store: Path, work: Path, words: list[str], peer: dict[str, float], args: argparse.Namespace
) -> tuple[list[Row], float]:
    """`deja search` as a process, words only (`work/home`, indexed with `DEJA_SEMANTIC=0`) and
    as `make demo` installs it (meaning on, `work/home-meaning`, indexed here), over the
    queries the peer's search is timed with; and the p50 of the words-only one."""
    from deja import semantic

    runs = 1 if args.quick else 3
    chosen = words[:8]
    rows: list[Row] = []
    plain = baselines.summarize(end_to_end(store, work / "home", chosen, runs, "0"))
    peer_cell = f"p50 {ms(peer['p50'])}" if peer else "—"
    rows.append(
        (
            "`deja search` process, words only (DEJA_SEMANTIC=0)",
            f"p50 {ms(plain['p50'])}, p99 {ms(plain['p99'])}",
            "p50 ≤ 40 ms above the interpreter",
            peer_cell,
            ratio(plain["p50"], peer["p50"]) if peer else "—",
        )
    )
    if not semantic.available():
        rows.append(("`deja search` process, meaning on", "the semantic extra is not installed",
                     "", "", ""))  # fmt: skip
        return rows, plain["p50"]
    os.environ.pop("DEJA_SEMANTIC", None)
    try:
        cold_s = cold_index(store, work, "home-meaning", None)
        history = History(home=work / "home-meaning", root=store, exclude_path=work / "no-exclude")
        history.refresh()  # records the stamp the processes check
        latencies = [
            timed(lambda q=q: history.search(SearchQuery(q, scope=Scope(), limit=20)))
            for q in words * (1 if args.quick else 5)
        ]
        history.close()
    finally:
        os.environ["DEJA_SEMANTIC"] = "0"
    inproc = baselines.summarize(latencies)
    meaning = baselines.summarize(end_to_end(store, work / "home-meaning", chosen, runs, None))
    question = baselines.summarize(
        end_to_end(store, work / "home-meaning", [MEANING_QUESTION], 3 * runs, None)
    )
    rows += [
        ("cold index, meaning on (as installed)", f"{cold_s:.2f} s", "", "", ""),
        (
            "search in process, meaning on",
            f"p50 {ms(inproc['p50'])}, p99 {ms(inproc['p99'])}",
            "",
            "",
            "",
        ),
        (
            "`deja search` process, meaning on (as installed)",
            f"p50 {ms(meaning['p50'])} ({meaning['p50'] / plain['p50']:.2f}× words only), "
            f"p99 {ms(meaning['p99'])}",
            "p50 ≤ 1.25× words only, ≤ peer's",
            peer_cell,
            ratio(meaning["p50"], peer["p50"]) if peer else "—",
        ),
        (
            "`deja search` process, a question meaning answers",
            f"p50 {ms(question['p50'])} ({question['p50'] / plain['p50']:.2f}× words only)",
            "",
            "",
            "",
        ),
    ]
    return rows, plain["p50"]


def search_only(store: Path, args: argparse.Namespace, work: Path) -> list[Row]:
    """`--only search`: both indexes and the peer's search, then `search_rows`."""
    words = queries(store)
    cold_s = cold_index(store, work, "home", None)
    History(home=work / "home", root=store, exclude_path=work / "no-exclude").refresh()
    peer: dict[str, float] = {}
    if not args.no_peer:
        home = work / "peer"
        home.mkdir()
        peer = baselines.summarize(
            baselines.deja_vu_search_latencies(store, home, words[:8], 1 if args.quick else 3)
        )
    store_mb = sum(p.stat().st_size for p in session_files(store)) / 1e6
    rows: list[Row] = [
        ("store", f"{store_mb:.0f} MB", "", "", ""),
        ("cold index, words only", f"{cold_s:.2f} s", "", "", ""),
    ]
    return rows + search_rows(store, work, words, peer, args)[0]


class PeerFigures:
    """deja-vu on the same store, in the same run (nothing when `--no-peer`)."""

    def __init__(self, store: Path, work: Path, words: list[str], args: argparse.Namespace) -> None:
        self.cold = self.noop = 0.0
        self.search: dict[str, float] = {}
        if args.no_peer:
            return
        home = work / "peer"
        home.mkdir()
        self.cold = baselines.deja_vu_cold_index(store, home)
        self.noop = baselines.deja_vu_noop_index(store, home)
        self.search = baselines.summarize(
            baselines.deja_vu_search_latencies(store, home, words[:8], 1 if args.quick else 3)
        )


def ripgrep_row(store: Path, words: list[str], ours: float, e2e: float, quick: bool) -> Row:
    rg = shutil.which("rg")
    if not rg:
        return ("ripgrep", "not installed", "apt-get install -y ripgrep", "", "")
    runs = 1 if quick else 3
    rg_s = baselines.summarize(
        [t for word in words[:8] for t in baselines.rg_latencies(store, word, runs)]
    )
    return (
        "ripgrep over the store (no index)",
        f"p50 {ms(rg_s['p50'])}",
        "",
        "",
        f"{rg_s['p50'] / ours:.0f}× our in-process p50; {rg_s['p50'] / e2e:.2f}× end to end",
    )


def print_rows(title: str, rows: list[Row]) -> None:
    header: Row = ("figure", "Deja", "target (issue 16)", "deja-vu", "ours ÷ peer's")
    table = [header, *rows]
    widths = [max(len(r[n]) for r in table) for n in range(5)]
    print(f"\n{title}")
    for row in table:
        print("  " + "  ".join(cell.ljust(widths[n]) for n, cell in enumerate(row)).rstrip())


def load_average() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def cold_index_without_orjson(store: Path, work: Path) -> float:
    """A cold index into its own home with `deja.jsonlib` on the standard library's json."""
    saved = jsonlib.orjson
    jsonlib.orjson = None  # type: ignore[assignment]
    try:
        history = History(home=work / "home-stdlib", root=store, exclude_path=work / "no-exclude")
        seconds = timed(history.refresh)
        history.close()
        return seconds
    finally:
        jsonlib.orjson = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--cli-size", help="the CLI-heavy store's size (default: 15 %% of --size)")
    parser.add_argument("--shapes", default="default,cli", help="which store shapes to run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI)")
    parser.add_argument("--no-peer", action="store_true", help="skip deja-vu")
    parser.add_argument(
        "--scale", action="store_true", help="the scale run (bench/scale.py; on by 4G and over)"
    )
    parser.add_argument("--scale-reference", default="1G", help="the scale run's linear yardstick")
    parser.add_argument(
        "--only",
        choices=["search"],
        help="only `deja search` as a process, words only and meaning on, beside the peer's",
    )
    args = parser.parse_args()
    size = parse_size(args.size)
    # The figures before the search rows are words only; `search_rows` measures meaning too.
    os.environ["DEJA_SEMANTIC"] = "0"
    if args.only is None and (args.scale or size >= 4 << 30):
        return scale_main(args, size)
    sizes = {
        "default": size,
        "cli": parse_size(args.cli_size) if args.cli_size else max(size * 15 // 100, 2 << 20),
    }
    started_load = load_average()
    print(f"load average at start: {started_load}", flush=True)
    results: list[tuple[str, list[Row]]] = []
    for shape in args.shapes.split(","):
        store = ensure_store(sizes[shape], args.seed, args.out, shape)
        work = Path(tempfile.mkdtemp(prefix="deja-bench-"))
        measure = search_only if args.only == "search" else bench_store
        try:
            results.append(
                (f"{shape} shape, {sizes[shape] >> 20} MiB target", measure(store, args, work))
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.only is None:
        provenance = [(*row, "", "") for row in provenance_bench.rows(quick=args.quick)]
        results.append(("per-line provenance, 5,000-line file", provenance))
    print(f"\nDeja bench · {args.size} store · seed {args.seed} · {os.cpu_count()} cores")
    for title, rows in results:
        print_rows(title, rows)
    print(f"\nload average (1, 5, 15 min): start {started_load} · end {load_average()}")
    return 0


def scale_main(args: argparse.Namespace, size: int) -> int:
    from bench.scale import scale_rows

    started_load = load_average()
    print(f"load average at start: {started_load}", flush=True)
    rows = scale_rows(size, parse_size(args.scale_reference), args.seed, args.out, args.quick)
    print_rows(f"scale run, {size >> 20} MiB default shape vs {args.scale_reference}", rows)
    print(f"\nload average (1, 5, 15 min): start {started_load} · end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
