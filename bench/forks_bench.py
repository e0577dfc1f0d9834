"""What recognising forks costs (issue 13): a generated store plus forks of some of its sessions
(a copy of the history under a new id, a later start, two turns of its own).

    python bench/forks_bench.py [--size 64M] [--forks 200] [--keep DIR]

Prints: the cold pass, and how much of it is linking forks (`link_forks` over every session
again, timed alone); an incremental pass that brings one new fork, against one that re-reads one
rewritten session that is no fork; search p50/p99 with the filter that leaves out a fork's copy
(`own_records`) and without it, the same queries in the same process (the ratio is the cost).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.make_store import make_store, parse_size
from deja.index import forks as fork_links
from deja.query import History, SearchQuery
from deja.query import search as search_module


def add_forks(store: Path, count: int, seed: int) -> list[str]:
    """Fork `count` sessions that have two history items or more; returns the forks' ids."""
    sessions = store / "sessions"
    listing: list[dict[str, Any]] = orjson.loads((sessions / "sessions.json").read_bytes())
    by_id = {entry["sessionId"]: entry for entry in listing}
    files = sorted(p for p in sessions.glob("*.json") if p.name != "sessions.json")
    rng = random.Random(seed)
    made: list[str] = []
    for path in rng.sample(files, len(files)):
        if len(made) == count:
            break
        doc = orjson.loads(path.read_bytes())
        history = doc.get("history")
        if not isinstance(history, list) or len(history) < 2 or path.stem not in by_id:
            continue
        fork_id = f"f0{len(made):06d}-0000-4000-8000-{rng.getrandbits(48):012x}"
        own = f"fork {len(made)}: carry on from here with the quokka refactor"
        doc["sessionId"], doc["title"] = fork_id, "Untitled Session"
        doc["history"] = [
            *history,
            {"message": {"role": "user", "content": own}, "contextItems": []},
            {"message": {"role": "assistant", "content": f"Done: {own}."}, "contextItems": []},
        ]
        (sessions / f"{fork_id}.json").write_bytes(orjson.dumps(doc))
        # Started now: after every generated session (their dates are in the past).
        started = str(int(time.time() * 1000))
        listing.append({**by_id[path.stem], "sessionId": fork_id, "dateCreated": started})
        made.append(fork_id)
    (sessions / "sessions.json").write_bytes(orjson.dumps(listing))
    return made


def timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"


def search_times(history: History, queries: list[str], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for query in queries:
            samples.append(timed(lambda q=query: history.search(SearchQuery(q, limit=10))))
    return samples


def run(base: Path, size: int, count: int) -> None:
    store = base / "store"
    stats = make_store(store, size, seed=1)
    forks = add_forks(store, count, seed=1)
    print(f"store: {stats.sessions} sessions, {stats.bytes / 1e6:.1f} MB; {len(forks)} forks added")
    history = History(home=base / "home", root=store)
    cold = timed(history.refresh)
    linked = history._db.execute("SELECT count(*) FROM forks").fetchone()[0]
    print(f"cold pass: {cold:.2f} s; forks recognised: {linked} of {len(forks)}")
    with history._index.transaction() as db:
        db.execute("DELETE FROM meta WHERE key = 'forks'")
        relink = timed(lambda: fork_links.link_forks(db, []))
    print(f"linking every session again: {relink * 1000:.0f} ms ({relink / cold:.1%} of the pass)")

    sessions = store / "sessions"
    source = next(p for p in sorted(sessions.glob("*.json")) if p.stem not in forks)
    history.refresh()
    doc = orjson.loads(source.read_bytes())
    doc["title"] = "rewritten"
    source.write_bytes(orjson.dumps(doc))
    rewritten = timed(history.refresh)
    add_forks(store, 1, seed=2)  # one more fork of a random session (its id is new)
    new_fork = timed(history.refresh)
    print(
        f"incremental pass, one new fork: {new_fork * 1000:.1f} ms; one rewritten session: "
        f"{rewritten * 1000:.1f} ms ({new_fork / rewritten:.2f}×)"
    )

    vocab = history._db.execute(
        "SELECT term FROM records_vocab WHERE length(term) > 4 ORDER BY cnt DESC LIMIT 40"
    ).fetchall()
    queries = [row[0] for row in vocab[10:40]] + ["quokka refactor"]
    search_times(history, queries, 1)  # warm the cache
    with_filter = search_times(history, queries, 5)
    original = search_module.own_records
    search_module.own_records = lambda alias: "1"  # type: ignore[assignment]
    try:
        without = search_times(history, queries, 5)
    finally:
        search_module.own_records = original
    ratio = statistics.median(with_filter) / statistics.median(without)
    print(f"search with the fork filter: {percentiles(with_filter)}")
    print(f"search without it:           {percentiles(without)} (p50 ratio {ratio:.2f}×)")
    history.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64M", help="store size, e.g. 16M, 64M, 1G")
    parser.add_argument("--forks", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build here and keep it")
    args = parser.parse_args(argv)
    base = args.keep or Path(tempfile.mkdtemp(prefix="deja-forks-bench-"))
    try:
        run(base, parse_size(args.size), args.forks)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
