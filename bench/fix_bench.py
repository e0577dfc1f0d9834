"""`deja fix` and `deja files` on a generated store: how long an answer takes in process, and
how many past failures the answers find. Prints figures; asserts nothing about time.

    python bench/fix_bench.py [--size 200M] [--keep DIR]

The asked errors are the last lines of failed commands' outputs the store holds (what a user
pastes), so each has at least one past failure to find; the topics are words of session titles.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.make_store import make_store, parse_size
from deja.query import History, Scope
from deja.query.error_signature import signature

ASKED = 30


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def asked_errors(history: History, rng: random.Random) -> list[str]:
    rows = history._db.execute(
        "SELECT unpack(output) FROM records WHERE role = 'command' AND output IS NOT NULL"
        " AND (status = 'errored' OR (exit_code IS NOT NULL AND exit_code != 0))"
    ).fetchall()
    tails = ["\n".join(str(row[0]).strip().splitlines()[-2:]) for row in rows]
    usable = [tail for tail in tails if signature(tail).lines]
    return rng.sample(usable, min(ASKED, len(usable)))


def topics(history: History, rng: random.Random) -> list[str]:
    words = [
        word
        for (title,) in history._db.execute("SELECT title FROM sessions")
        for word in str(title).split()
        if len(word) > 5 and word.isalpha()
    ]
    return rng.sample(sorted(set(words)), min(ASKED, len(set(words))))


def timed(action: object, inputs: list[str]) -> tuple[list[float], list[object]]:
    times, answers = [], []
    for text in inputs:
        start = time.perf_counter()
        answers.append(action(text))  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return times, answers


def run(base: Path, size: int) -> int:
    store, home = base / "store", base / "home"
    if not (store / "sessions").is_dir():
        stats = make_store(store, size)
        print(f"store: {stats}")
    history = History(home=home, root=store)
    start = time.perf_counter()
    history.refresh()
    print(f"index: {time.perf_counter() - start:.1f} s")
    failures = history._db.execute(
        "SELECT count(*) FROM records WHERE role IN ('command','tool','read','edit')"
        " AND (status = 'errored' OR (exit_code IS NOT NULL AND exit_code != 0))"
    ).fetchone()[0]
    sessions = history._db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    print(f"{sessions} sessions, {failures} failed calls")
    rng = random.Random(1)
    fix_times, fixes = timed(lambda text: history.fix(text, Scope()), asked_errors(history, rng))
    found = [len(result.failures) for result in fixes]  # type: ignore[attr-defined]
    fixed = sum(any(f.fixed for f in result.failures) for result in fixes)  # type: ignore[attr-defined]
    print(
        f"deja fix in process ({len(fix_times)} errors): p50 {statistics.median(fix_times):.1f} ms,"
        f" p90 {percentile(fix_times, 0.9):.1f} ms, max {max(fix_times):.1f} ms;"
        f" past failures found per error: median {statistics.median(found):.0f};"
        f" errors with a past fix: {fixed} of {len(fixes)}"
    )
    files_times, _ = timed(lambda topic: history.files(topic, Scope()), topics(history, rng))
    print(
        f"deja files in process ({len(files_times)} topics): p50 "
        f"{statistics.median(files_times):.1f} ms, p90 {percentile(files_times, 0.9):.1f} ms"
    )
    history.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="200M")
    parser.add_argument("--keep", type=Path, help="work here and leave it (default: a temp dir)")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return run(args.keep, parse_size(args.size))
    with tempfile.TemporaryDirectory() as folder:
        return run(Path(folder), parse_size(args.size))


if __name__ == "__main__":
    raise SystemExit(main())
