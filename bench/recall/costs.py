"""What the semantic extra costs on the bench store (`bench/make_store.py`, e.g. 1 GB): cold index
with and without vectors, the vectors' size, and search in process (hybrid vs words only).

    python bench/recall/costs.py --size 1G
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "server"), str(HERE.parent.parent)]

from bench.make_store import parse_size  # noqa: E402
from bench.recall.topics import TOPICS  # noqa: E402
from bench.run import ensure_store, queries  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402


def cold(store: Path, home: Path, semantic: str) -> tuple[History, float, float]:
    """The index, and its cold pass's wall and CPU seconds (CPU: the machine may be shared)."""
    os.environ["DEJA_SEMANTIC"] = semantic
    history = History(home=home, root=store, exclude_path=home.parent / "no-exclude")
    started, cpu = time.perf_counter(), time.process_time()
    history.refresh()
    return history, time.perf_counter() - started, time.process_time() - cpu


def p50(history: History, texts: list[str], semantic: str, runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of one search."""
    os.environ["DEJA_SEMANTIC"] = semantic
    history.search(SearchQuery(texts[0], scope=Scope(), limit=20))  # loads the matrix once
    wall, cpu = [], []
    for n in range(runs):
        started, used = time.perf_counter(), time.process_time()
        history.search(SearchQuery(texts[n % len(texts)], scope=Scope(), limit=20))
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE.parent / "out")
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    store = ensure_store(parse_size(args.size), args.seed, args.out)
    work = Path(tempfile.mkdtemp(prefix="deja-costs-"))
    try:
        for path in (store / "sessions").glob("*.json"):  # warm the page cache for both
            path.read_bytes()
        words_only, without, cpu_without = cold(store, work / "words", "0")
        size_without = (work / "words" / "index.sqlite3").stat().st_size
        words_only.close()
        history, with_vectors, cpu_with = cold(store, work / "vectors", "1")
        db = sqlite3.connect(work / "vectors" / "index.sqlite3")
        count = db.execute("SELECT count(*) FROM record_vectors").fetchone()[0]
        db.close()
        size_with = (work / "vectors" / "index.sqlite3").stat().st_size
        texts = [q for t in TOPICS for q in (*t.paraphrases, t.exact)] + queries(store)
        words_p50 = p50(history, texts, "0", args.runs)
        hybrid_p50 = p50(history, texts, "1", args.runs)
        history.close()
    finally:
        os.environ.pop("DEJA_SEMANTIC", None)
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nSemantic extra on the {args.size} bench store ({store.name})")
    print(
        f"  cold index: {without:.1f} s words only, {with_vectors:.1f} s with vectors "
        f"({with_vectors / without:.2f}×, target ≤ 1.3×); CPU {cpu_without:.1f} s → "
        f"{cpu_with:.1f} s ({cpu_with / cpu_without:.2f}×)"
    )
    print(
        f"  vectors: {count:,} records, index {size_without / 1e6:.0f} MB → "
        f"{size_with / 1e6:.0f} MB"
    )
    print(
        f"  search in process, p50: words only {words_p50[0] * 1000:.1f} ms "
        f"(CPU {words_p50[1] * 1000:.1f} ms), hybrid {hybrid_p50[0] * 1000:.1f} ms "
        f"(CPU {hybrid_p50[1] * 1000:.1f} ms; target ≤ 10 ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
