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


def deja_env(store: Path, home: Path, semantic: str | None = "0") -> dict[str, str]:
    """A `deja` process's environment; `semantic` is `DEJA_SEMANTIC` (None: unset, as
    installed)."""
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
    return env


def deja_once(store: Path, home: Path, words: list[str], semantic: str | None = "0") -> float:
    """Wall-clock seconds of one `deja WORDS…` process."""
    env = deja_env(store, home, semantic)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "deja", *words], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def interleaved(
    contenders: dict[str, Callable[[str], float]], items: list[str], runs: int
) -> dict[str, list[float]]:
    """Each contender on each item in turn, `runs` rounds after an untimed one, the order
    rotating each round: samples of the same minutes, so a ratio between contenders does not
    depend on what else the machine did between them."""
    names = list(contenders)
    out: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(runs + 1):
        turn = names[round_ % len(names) :] + names[: round_ % len(names)]
        for item in items:
            for name in turn:
                seconds = contenders[name](item)
                if round_:
                    out[name].append(seconds)
    return out


# `deja …` that says its own peak RSS on the way out: a child's `ru_maxrss` starts at its parent's
# size (Linux carries the high-water mark across fork and exec), so the bench process's would show.
_SAYS_PEAK = (
    "import atexit, re, runpy, sys\n"
    "def said():\n"
    "    status = open('/proc/self/status').read()\n"
    "    print('VmHWM', re.search(r'VmHWM:\\s+(\\d+)', status).group(1), file=sys.stderr)\n"
    "atexit.register(said)\n"
    "sys.argv = ['deja', *sys.argv[1:]]\n"
    "runpy.run_module('deja', run_name='__main__', alter_sys=True)\n"
)


def cold_rss_mb(store: Path, home: Path, semantic: str | None) -> float:
    """Peak RSS of a cold `deja index` (the writer) in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", _SAYS_PEAK, "index"],
        env=deja_env(store, home, semantic),
        capture_output=True,
        text=True,
        check=False,
    )
    peaks = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM ")]
    if done.returncode or not peaks:
        raise RuntimeError(f"deja index failed ({done.returncode}): {done.stderr[-500:]}")
    return int(peaks[-1]) / 1024


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
    rss = cold_rss_mb(store, work / "rss-home", "0")
    fallback_s = cold_index_without_orjson(store, work)
    per_session_s = cold_index(store, work, "ab-per-session", 1)
    batched_s = cold_index(store, work, "ab-batched", None)
    serial_cpu, worker_cpu = (
        cold_cpu(store, work, workers=False),
        cold_cpu(store, work, workers=True),
    )
    peer = PeerFigures(store, work, args)
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
        ("peak RSS, cold `deja index` in its own process", f"{rss:.0f} MB", "≤ 200 MB", "", ""),
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
    noop_contenders: dict[str, Callable[[str], float]] = {
        "ours": lambda _: deja_once(store, work / "home", ["index"])
    }
    if peer.cold:
        noop_contenders["peer"] = lambda _: baselines.deja_vu_noop_once(store, peer.home)
    noop_samples = interleaved(noop_contenders, [""], 3 if args.quick else 15)
    noop_process = baselines.summarize(noop_samples["ours"])["p50"]
    peer_noop = baselines.summarize(noop_samples["peer"])["p50"] if peer.cold else 0.0
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
            f"p50 {ms(noop_process)}",
            "≤ 1.0× peer's",
            f"p50 {ms(peer_noop)}" if peer_noop else "—",
            ratio(noop_process, peer_noop),
        ),
        (
            "A/B no-change: the pass → the stamp check",
            f"{ms(noop)} → {ms(stamp)}",
            "",
            "",
            ratio(stamp, noop),
        ),
    ]
    whole, watched = [], []
    for _ in range(1 if args.quick else 5):
        rewritten = rewrite_one_session(store)
        whole.append(timed(history.refresh))
        rewritten = rewrite_one_session(store)
        watched.append(timed(lambda only={rewritten.stem}: history.refresh(only=only)))
    rows += [
        (
            "re-index one rewritten session: a whole pass (`deja index`)",
            f"p50 {ms(baselines.summarize(whole)['p50'])} "
            f"({rewritten.stat().st_size / 1e6:.2f} MB)",
            "≤ 20 ms",
            "",
            "",
        ),
        (
            "re-index it as the editor's watcher does (that file alone)",
            f"p50 {ms(baselines.summarize(watched)['p50'])}",
            "≤ 20 ms",
            "",
            "",
        ),
    ]
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
    search, e2e_p50 = search_rows(store, work, words, peer.home if peer.cold else None, args)
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
    store: Path, work: Path, words: list[str], peer: Path | None, args: argparse.Namespace
) -> tuple[list[Row], float]:
    """`deja search` as a process, words only (`work/home`, indexed with `DEJA_SEMANTIC=0`) and
    as `make demo` installs it (meaning on, `work/home-meaning`, indexed here), interleaved with
    the peer's search (its index in `peer`) over the peer's queries; and the words-only p50."""
    from deja import semantic

    runs = 1 if args.quick else 3
    chosen = words[:8]
    contenders: dict[str, Callable[[str], float]] = {
        "words": lambda q: deja_once(store, work / "home", ["search", q, *SEARCH_ARGS]),
    }
    if peer is not None:
        contenders["peer"] = lambda q: baselines.deja_vu_search_once(store, peer, q)
    rows: list[Row] = []
    meaning_on = semantic.available()
    if meaning_on:
        cold_s, cold_rss = cold_process(store, work / "home-meaning")
        home = work / "home-meaning"
        contenders["meaning"] = lambda q: deja_once(store, home, ["search", q, *SEARCH_ARGS], None)
        os.environ.pop("DEJA_SEMANTIC", None)
        try:
            history = History(home=home, root=store, exclude_path=work / "no-exclude")
            latencies = [
                timed(lambda q=q: history.search(SearchQuery(q, scope=Scope(), limit=20)))
                for q in words * (1 if args.quick else 5)
            ]
            history.close()
        finally:
            os.environ["DEJA_SEMANTIC"] = "0"
    timings = interleaved(contenders, chosen, runs)
    samples = {name: baselines.summarize(found) for name, found in timings.items()}
    plain = samples["words"]
    peer_p50 = samples["peer"]["p50"] if peer is not None else 0.0
    peer_cell = f"p50 {ms(peer_p50)}" if peer_p50 else "—"
    rows.append(
        (
            "`deja search` process, words only (DEJA_SEMANTIC=0)",
            f"p50 {ms(plain['p50'])}, p99 {ms(plain['p99'])}",
            "p50 ≤ 40 ms above the interpreter",
            peer_cell,
            ratio(plain["p50"], peer_p50),
        )
    )
    if not meaning_on:
        rows.append(("`deja search` process, meaning on", "the semantic extra is not installed",
                     "", "", ""))  # fmt: skip
        return rows, plain["p50"]
    inproc, meaning = baselines.summarize(latencies), samples["meaning"]
    question = interleaved(
        {name: contenders[name] for name in ("words", "meaning")}, [MEANING_QUESTION], 3 * runs
    )
    asked = baselines.summarize(question["meaning"])["p50"]
    rows += [
        ("cold `deja index`, meaning on (as installed)", f"{cold_s:.2f} s", "", "", ""),
        ("peak RSS of that process, meaning on", f"{cold_rss:.0f} MB", "", "", ""),
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
            ratio(meaning["p50"], peer_p50),
        ),
        (
            "`deja search` process, a question meaning answers",
            f"p50 {ms(asked)} (words only on it: "
            f"{ms(baselines.summarize(question['words'])['p50'])})",
            "",
            "",
            "",
        ),
    ]
    return rows, plain["p50"]


def cold_process(store: Path, home: Path) -> tuple[float, float]:
    """A cold `deja index` as installed (meaning on), as a process: seconds and peak RSS."""
    started = time.perf_counter()
    rss = cold_rss_mb(store, home, None)
    return time.perf_counter() - started, rss


SEARCH_ARGS = ["--all", "--limit", "10"]


def search_only(store: Path, args: argparse.Namespace, work: Path) -> list[Row]:
    """`--only search`: both indexes and the peer's, then `search_rows`."""
    words = queries(store)
    cold_s = cold_index(store, work, "home", None)
    History(home=work / "home", root=store, exclude_path=work / "no-exclude").refresh()
    peer = PeerFigures(store, work, args)
    store_mb = sum(p.stat().st_size for p in session_files(store)) / 1e6
    rows: list[Row] = [
        ("store", f"{store_mb:.0f} MB", "", "", ""),
        ("cold index, words only", f"{cold_s:.2f} s", "", "", ""),
    ]
    if peer.cold:
        rows.append(("cold index, the peer", f"{peer.cold:.2f} s", "", "", ""))
    return rows + search_rows(store, work, words, peer.home if peer.cold else None, args)[0]


class PeerFigures:
    """deja-vu's cold index on the same store, in the same run (nothing when `--no-peer`); its
    no-change pass and searches are timed interleaved with Deja's (`interleaved`)."""

    def __init__(self, store: Path, work: Path, args: argparse.Namespace) -> None:
        self.cold = 0.0
        self.home = work / "peer"
        if args.no_peer:
            return
        self.home.mkdir()
        self.cold = baselines.deja_vu_cold_index(store, self.home)


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
