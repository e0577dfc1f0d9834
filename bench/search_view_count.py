"""What VS Code's Search in View pays for its counts line: `deja/search`'s first page (limit 50)
with `count: true` (every hit counted, a second query when the page is full) against without, on
a generated store, the two alternating in one process; CPU time (`time.process_time`), median of
the rounds. Usage: `python -m bench.search_view_count [--size 48MB] [--rounds 15]`."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import orjson

from bench.make_store import make_store, parse_size
from deja.query import History, Scope, SearchQuery


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="48MB")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deja-sv-count-"))
    store = work / "store"
    make_store(store, parse_size(args.size), seed=3)
    history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
    history.refresh()
    needles = orjson.loads((store / "needles.json").read_bytes())
    words = [c["query"] for c in needles["common"]] + [n["query"] for n in needles["needles"]]

    def run(count: bool) -> float:
        start = time.process_time()
        for word in words:
            history.search(SearchQuery(word, scope=Scope(), limit=50, count_all=count))
        return (time.process_time() - start) * 1000 / len(words)

    plain: list[float] = []
    counted: list[float] = []
    for _ in range(args.rounds):
        plain.append(run(False))
        counted.append(run(True))
    totals = [history.search(SearchQuery(w, scope=Scope(), limit=50)).total for w in words]
    without, with_count = statistics.median(plain), statistics.median(counted)
    print(f"store {args.size}, {len(words)} queries (hits per query {min(totals)}–{max(totals)})")
    print(f"first page without count: {without:.2f} ms CPU per query")
    ratio = with_count / without
    print(f"first page with count:    {with_count:.2f} ms CPU per query ({ratio:.2f}×)")
    history.close()


if __name__ == "__main__":
    main()
