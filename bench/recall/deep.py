"""Recall through the product: what a long-running door's search answers once its background
pass has read every record with the deep model, against the static model alone (a process that
never called `allow_deep`, as `deja search`).

    python bench/recall/deep.py            # the full recall store (64 MB of noise)
    python bench/recall/deep.py --quick    # 8 MB of noise

The recall store (`store.py`) is indexed with meaning on (`deja index`'s pass: the static
model's vectors). Then, each in a child process of its own (its CPU time and peak RSS its own):
- **door**: a `LiveIndex` as the sidecar and the MCP server run it (it calls `allow_deep`), its
  first pass (nothing to do) awaited, then its deep pass until it reports `meaning_caught_up`:
  the pass's wall and process CPU time over the records it read (the model's load included).
  Then every question through `History.search`, the sidecar's call, at each deep floor
  (`meaning.DEEP_MIN_SIMILARITY` set for the run), and the off-topic questions of `models.py`.
- **static**: the same questions, same index, in a process without `allow_deep`.
- **half**: the index copied with the deep vectors of the least recently active sessions
  removed until half the records are left unread (where the pass, newest first, is halfway),
  and the questions asked under the interleave rule of `meaning.py` and two alternatives.
recall@5 and MRR as `run.py` scores them; an off-topic question "leaks" when the search
returns any hit for it (the words find none: every hit is by meaning).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "server"), str(HERE.parent.parent)]

from bench.recall.models import OFF_TOPIC  # noqa: E402
from bench.recall.run import cold_index, distinct, score  # noqa: E402
from bench.recall.store import Question, add_store_arguments, recall_store  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402

FLOORS = (0.20, 0.23, 0.26, 0.29, 0.32)
HALF_RULES = ("interleave", "deep first", "deep only")


def ask(history: History, text: str) -> list[str]:
    """The sessions of a question's hits, best first: the sidecar's search, 50 deep."""
    found = history.search(SearchQuery(text, scope=Scope(), limit=50, count_all=False))
    return distinct([hit.session_id for hit in found.hits])


def recall(history: History, questions: list[Question]) -> dict[str, Any]:
    """recall@5 and MRR per kind, off-topic questions that got any hit, search latency."""
    walls: list[float] = []
    cpus: list[float] = []

    def timed(text: str) -> list[str]:
        wall, cpu = time.perf_counter(), time.thread_time()
        sessions = ask(history, text)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.thread_time() - cpu)
        return sessions

    scored = score(questions, timed)
    leaks = [text for text in OFF_TOPIC if ask(history, text)]
    return {
        "scores": scored,
        "leaks": leaks,
        "wall_ms": statistics.median(walls) * 1000,
        "cpu_ms": statistics.median(cpus) * 1000,
    }


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def door(home: Path, store: Path, questions: list[Question]) -> dict[str, Any]:
    """A live index's deep pass, then the questions at each floor (in this process)."""
    from deja import semantic
    from deja.live_index import LiveIndex, LiveListener
    from deja.query import meaning

    class Listener(LiveListener):
        caught_up = threading.Event()
        records = 0

        def meaning_caught_up(self, records: int) -> None:
            self.records = records
            self.caught_up.set()

    listener = Listener()
    live = LiveIndex(home, store, listener)
    live.start(watch=False)
    live.wait_indexed()
    if not semantic.deep_enabled():
        raise RuntimeError("the deep model is not enabled here (installed? DEJA_SEMANTIC?)")
    wall, cpu = time.perf_counter(), time.process_time()
    listener.caught_up.wait()
    out: dict[str, Any] = {
        "records": listener.records,
        "pass_wall_s": time.perf_counter() - wall,
        "pass_cpu_s": time.process_time() - cpu,
        "pass_rss_mb": rss_mb(),
    }
    history = live.history
    assert history is not None
    out["floors"] = {}
    for floor in FLOORS:
        meaning.DEEP_MIN_SIMILARITY = floor
        out["floors"][str(floor)] = recall(history, questions)
    out["rss_mb"] = rss_mb()
    live.close()
    return out


def static(home: Path, store: Path, questions: list[Question]) -> dict[str, Any]:
    history = History(home, store)
    out = recall(history, questions)
    out["rss_mb"] = rss_mb()
    return out


def half(home: Path, store: Path, questions: list[Question]) -> dict[str, Any]:
    """The questions when the deep pass is halfway, under each rule for the unread records."""
    from deja import semantic
    from deja.query import meaning

    semantic.allow_deep()
    history = History(home, store)
    product = meaning._with_deep
    rules: dict[str, Callable[..., list[int]]] = {
        "interleave": product,
        "deep first": lambda db, q, light: _ordered(db, q, light, product, deep_first=True),
        "deep only": lambda db, q, light: _ordered(db, q, light, product, deep_first=False),
    }
    out: dict[str, Any] = {}
    for name in HALF_RULES:
        meaning._with_deep = rules[name]  # type: ignore[assignment]
        out[name] = recall(history, questions)
    meaning._with_deep = product  # type: ignore[assignment]
    return out


def _ordered(
    db: sqlite3.Connection,
    question: str,
    by_light: list[int],
    product: Callable[..., list[int]],
    *,
    deep_first: bool,
) -> list[int]:
    """The deep model's hits (the product's, with no unread record to interleave), then the
    static model's unread ones (`deep_first`) or none (deep only)."""
    from deja.semantic import deep_pass

    read = deep_pass.covered(db, by_light)
    deep = product(db, question, [rid for rid in by_light if rid in read])
    rest = [rid for rid in by_light if rid not in read] if deep_first else []
    return (deep + rest)[: len(deep) + len(rest)]


def halve(source: Path, target: Path, *, alternate: bool) -> dict[str, Any]:
    """`target`: `source`'s index with the deep vectors of the least recently active sessions
    removed until at most half the records have one (where the pass is halfway); `alternate`:
    of every other session instead, by last activity (so that about half the answers are
    unread, which the pass's order does not give on the recall store)."""
    target.mkdir(parents=True)
    with (
        sqlite3.connect(source / "index.sqlite3") as src,
        sqlite3.connect(target / "index.sqlite3") as db,
    ):
        src.backup(db)
        by_session = db.execute(
            "SELECT r.session_id, count(*) FROM records r JOIN record_vectors_deep v"
            " ON v.record_id = r.id JOIN sessions s ON s.id = r.session_id"
            " GROUP BY r.session_id ORDER BY max(s.last_active) DESC"
        ).fetchall()
        total = sum(n for _, n in by_session)
        kept, read = 0, []
        for index, (session_id, n) in enumerate(by_session):
            if alternate and index % 2:
                continue
            if not alternate and kept + n > total / 2:
                break
            kept += n
            read.append(session_id)
        marks = ",".join("?" * len(read))
        db.execute(
            "DELETE FROM record_vectors_deep WHERE record_id IN (SELECT id FROM records"
            f" WHERE session_id NOT IN ({marks}))",
            read,
        )
    db.close()
    src.close()
    return {"records": total, "read": kept, "sessions": [str(sid) for sid in read]}


def child(phase: str, home: Path, store: Path, questions: Path) -> dict[str, Any]:
    """`phase` run in a process of its own; its JSON answer."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(home.parent / "config")}
    env.pop("DEJA_SEMANTIC", None)  # as installed
    where = [str(home), str(store), str(questions)]
    done = subprocess.run(
        [sys.executable, __file__, "--phase", phase, *where],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


PHASES = {"door": door, "static": static, "half": half}


def row(name: str, found: dict[str, Any]) -> str:
    p, e = found["scores"]["paraphrase"], found["scores"]["exact"]
    leaks = f"{len(found['leaks'])} of {len(OFF_TOPIC)}"
    latency = f"{found['cpu_ms']:.1f} ({found['wall_ms']:.1f})"
    return (
        f"  {name:<44} {p[0]:>8.1%} {p[1]:>8.3f} {e[0]:>9.1%} {e[1]:>9.3f} {leaks:>9} {latency:>14}"
    )


def header() -> str:
    return (
        f"  {'search':<44} {'para R@5':>8} {'para MRR':>8} {'exact R@5':>9} {'exact MRR':>9}"
        f" {'off-topic':>9} {'p50 CPU (wall)':>14}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_store_arguments(parser)
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("where", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        from bench.recall.store import load_questions

        home, store, questions_file = (Path(w) for w in args.where)
        print(json.dumps(PHASES[args.phase](home, store, load_questions(questions_file))))
        return 0
    store, questions = recall_store(args)
    work = Path(tempfile.mkdtemp(prefix="deja-recall-deep-"))
    try:
        indexed = cold_index(store, work, "1")
        home = work / "home-1"
        print(f"indexed with meaning on in {indexed:.1f} s", flush=True)
        asked = store / "questions.json"
        found = child("door", home, store, asked)
        print(f"deep pass: {found['records']} records in {found['pass_wall_s']:.0f} s", flush=True)
        alone = child("static", home, store, asked)
        halves = []
        for alternate in (False, True):
            target = work / f"home-half-{alternate}"
            state = halve(home, target, alternate=alternate)
            halves.append((state, child("half", target, store, asked)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = {k: sum(1 for q in questions if q.kind == k) for k in ("paraphrase", "exact")}
    print(
        f"\nThrough the product · {len(questions)} questions ({counts['paraphrase']} paraphrase,"
        f" {counts['exact']} exact) and {len(OFF_TOPIC)} off-topic · store {store.name}"
    )
    records, cpu = found["records"], found["pass_cpu_s"]
    print(
        f"  deep pass (LiveIndex, until meaning_caught_up): {records} records,"
        f" {cpu:.1f} s CPU = {cpu / max(records, 1) * 1000:.1f} ms a record (model load included),"
        f" {found['pass_wall_s']:.1f} s wall; peak RSS {found['pass_rss_mb']:.0f} MB after the"
        f" pass, {found['rss_mb']:.0f} MB after the questions"
    )
    print(header())
    print(row("static model alone (no allow_deep: the CLI)", alone))
    for floor, result in found["floors"].items():
        print(row(f"deep model (a door), floor {floor}", result))
    print(f"  static process peak RSS {alone['rss_mb']:.0f} MB")
    for (state, at_half), how in zip(halves, ("newest first", "every other session"), strict=True):
        read = set(state["sessions"])
        answered = sum(1 for q in questions if q.kind == "paraphrase" and set(q.answers) & read)
        print(
            f"\nHalf read ({how}): {state['read']} of {state['records']} records, {len(read)}"
            f" sessions; {answered} of {counts['paraphrase']} paraphrases' answers among them"
        )
        print(header())
        for name in HALF_RULES:
            print(row(f"{name}", at_half[name]))
    for name, result in [("static", alone), *found["floors"].items()]:
        if result["leaks"]:
            print(f"  off-topic hits ({name}): {result['leaks']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
