"""When should meaning join the words' hits? Recall on the recall set (`store.py`, `topics.py`)
for each join rule `query/meaning.py` could take: never, always, and "the words found fewer
than FEW records, or their best is below CLOSE times the CLOSE_RANK-th" over a grid; beside
each, the share of questions that load the model (a `deja search` process pays for it).

    python bench/recall/join_rule.py           # 64 MB of noise, as bench/recall/run.py
    python bench/recall/join_rule.py --quick   # 8 MB
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "server"), str(HERE.parent.parent)]

from bench.recall.run import distinct  # noqa: E402
from bench.recall.store import Question, add_store_arguments, recall_store  # noqa: E402
from deja.index.pack import register  # noqa: E402
from deja.query import (  # noqa: E402
    History,
    Scope,
    SearchQuery,
    meaning,
)
from deja.query.hits import filters  # noqa: E402
from deja.query.query_syntax import parse_query  # noqa: E402

# (word hits' record ids, their scores, how many in all, the meaning's ranked ids)
Seen = tuple[list[int], list[float], int, list[int]]
Rule = Callable[[Sequence[float], int], bool]


def observe(history: History, db: sqlite3.Connection, question: Question) -> Seen:
    os.environ["DEJA_SEMANTIC"] = "0"
    try:
        words = history.search(SearchQuery(question.text, scope=Scope(), limit=meaning.DEPTH))
    finally:
        os.environ.pop("DEJA_SEMANTIC", None)
    parsed = parse_query(question.text)
    where, params = filters(SearchQuery(question.text, scope=Scope()), None)
    near = meaning.ranked(db, meaning.question_text(parsed), where, params) or []
    ids = [hit.record_id for hit in words.hits]
    return ids, [hit.score for hit in words.hits], words.total, near[: meaning.DEPTH]


def answer(seen: Seen, rule: Rule, allowed: bool) -> tuple[list[int], bool]:
    ids, scores, total, near = seen
    if not allowed or not rule(scores, total):
        return ids, False
    return [rid for rid, _ in meaning.fuse(ids, near)], True


def rule_of(few: int, close_rank: int, close: float) -> Rule:
    def rule(scores: Sequence[float], total: int) -> bool:
        if total < few:
            return True
        if len(scores) < close_rank:
            return False
        return scores[0] < close * scores[close_rank - 1]

    return rule


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_store_arguments(parser)
    args = parser.parse_args()
    store, questions = recall_store(args)
    work = Path(tempfile.mkdtemp(prefix="deja-join-"))
    try:
        history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
        history.refresh()
        db = sqlite3.connect(work / "home" / "index.sqlite3")
        register(db)
        session_of = dict(db.execute("SELECT id, session_id FROM records").fetchall())
        seen = [observe(history, db, q) for q in questions]
        allowed = [meaning.may_join(parse_query(q.text)) for q in questions]
        db.close()
        history.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rules: list[tuple[str, Rule]] = [
        ("never (words only)", lambda s, t: False),
        ("always (every plain question)", lambda s, t: True),
    ]
    for few in (1, 3, 5, 10, 20):
        for close_rank, close in ((5, 1.0), (2, 1.1), (5, 1.25), (5, 1.5), (10, 1.5), (10, 2.0)):
            name = f"fewer than {few}" + (
                f", or best < {close}× the {close_rank}th" if close > 1.0 else ""
            )
            rules.append((name, rule_of(few, close_rank, close)))
    rules.append(("shipped (query/meaning.py)", lambda s, t: meaning.joins(t)))
    print(f"\nJoin rule · {len(questions)} questions · store {store.name}")
    print(
        f"  {'rule':<42} {'para R@5':>8} {'para MRR':>8} {'exact R@5':>9} {'exact MRR':>9}"
        f" {'embeds':>7}"
    )
    for name, rule in rules:
        cells = []
        embeds = 0
        for kind in ("paraphrase", "exact"):
            found = reciprocal = 0.0
            chosen = [n for n, q in enumerate(questions) if q.kind == kind]
            for n in chosen:
                ids, embedded = answer(seen[n], rule, allowed[n])
                embeds += embedded
                ranked = distinct([session_of[rid] for rid in ids])[:50]
                positions = [ranked.index(a) for a in questions[n].answers if a in ranked]
                if positions:
                    reciprocal += 1 / (min(positions) + 1)
                    found += min(positions) < 5
            cells += [found / len(chosen), reciprocal / len(chosen)]
        print(
            f"  {name:<42} {cells[0]:>8.1%} {cells[1]:>8.3f} {cells[2]:>9.1%} {cells[3]:>9.3f}"
            f" {embeds / len(questions):>7.0%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
