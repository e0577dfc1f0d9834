"""Embedding models against the recall set, each as Deja would use it: licence and size are in
MODELS.md; this measures the rest.

    python bench/recall/models.py            # every candidate installed (encoders.py)
    python bench/recall/models.py --quick    # 8 MB of noise instead of 64 MB
    python bench/recall/models.py --probe NAME   # one candidate's load, alone, in this process

Per candidate: import and load in a fresh process with the network cut (`unshare -n` when it
works here, and an audit hook counting socket connects), the records of the recall store
embedded (records/s, CPU ms per record), one question embedded at a time (p50 ms), recall@5
and MRR by embeddings alone and fused with BM25 (RRF, the same constant as `deja search`,
without its cosine floor, which is per model).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]

from bench.recall.encoders import CANDIDATES, Candidate  # noqa: E402

# Questions about nothing in any history: how close their nearest record comes says where a
# floor for hits by meaning alone would have to sit for this model (cosines are not comparable
# across models).
OFF_TOPIC = (
    "how long to boil an egg for a soft yolk",
    "who won the football match last night",
    "best time of year to plant tomatoes",
    "what is the capital of Australia",
    "a good recipe for banana bread",
    "how do I fix a flat bicycle tyre",
)


def probe(name: str) -> dict[str, object]:
    """Import and load one candidate here, then embed a question: the one-shot process's cost."""
    connects: list[object] = []
    sys.addaudithook(lambda event, a: connects.append(a) if event == "socket.connect" else None)
    started, cpu = time.perf_counter(), time.process_time()
    candidate = next(c for c in CANDIDATES if c.name == name)
    _, queries = candidate.load()
    loaded, load_cpu = time.perf_counter() - started, time.process_time() - cpu
    first = time.perf_counter()
    queries(["where did we decide how to cache sessions"])
    return {
        "load_s": loaded,
        "load_cpu_s": load_cpu,
        "first_query_s": time.perf_counter() - first,
        "connects": len(connects),
    }


def probe_offline(name: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [sys.executable, str(Path(__file__)), "--probe", name]
    cut = shutil.which("unshare")
    if cut and subprocess.run([cut, "-n", "true"], capture_output=True).returncode == 0:
        command = [cut, "-n", *command]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["network_cut"] = command[0] == cut
    return result


def measure(  # type: ignore[no-untyped-def]
    candidate: Candidate, rows: list[tuple[str, str, str]], questions, words
) -> dict[str, object]:
    import numpy as np

    from bench.recall.run import score
    from deja.semantic.model import MAX_CHARS

    records, queries = candidate.load()
    ids = [rid for rid, _, _ in rows]
    sessions = [sid for _, sid, _ in rows]
    texts = [text for _, _, text in rows]
    started, cpu = time.perf_counter(), time.process_time()
    matrix = np.asarray(records(texts), dtype=np.float32)
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    query_vectors = {}
    latencies, cpus = [], []
    for question in questions:
        began, cpu = time.perf_counter(), time.process_time()
        query_vectors[question.text] = np.asarray(queries([question.text]), dtype=np.float32)[0]
        latencies.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)

    answer_cosines = []
    for question in questions:
        if question.kind == "paraphrase":
            rows_of = [i for i, sid in enumerate(sessions) if sid in question.answers]
            answer_cosines.append(float((matrix[rows_of] @ query_vectors[question.text]).max()))
    off_topic = [float((matrix @ queries([text])[0]).max()) for text in OFF_TOPIC]

    def nearest(text: str) -> list[int]:
        return [int(i) for i in np.argsort(-(matrix @ query_vectors[text]))[:400]]

    def alone(text: str) -> list[str]:
        return list(dict.fromkeys(sessions[i] for i in nearest(text)))

    def hybrid(text: str) -> list[str]:
        scores: dict[str, float] = {}
        by_words = words(text)
        for rank, (rid, _) in enumerate(by_words[:50]):
            scores[rid] = 1 / (61 + rank)
        for rank, i in enumerate(nearest(text)[:50]):
            scores[ids[i]] = scores.get(ids[i], 0.0) + 1 / (61 + rank)
        session_of = dict(by_words) | {ids[i]: sessions[i] for i in nearest(text)[:50]}
        order = sorted(scores, key=lambda rid: -scores[rid])
        return list(dict.fromkeys(session_of[rid] for rid in order))

    return {
        "records": len(texts),
        "records_per_s": len(texts) / wall,
        "cpu_ms_per_record": used * 1000 / len(texts),
        "query_p50_ms": statistics.median(latencies) * 1000,
        "query_cpu_p50_ms": statistics.median(cpus) * 1000,
        "chars_per_record": sum(len(t[:MAX_CHARS]) for t in texts) / len(texts),
        "answer_cosine_p50": statistics.median(answer_cosines),
        "answer_cosine_p10": statistics.quantiles(answer_cosines, n=10)[0],
        "off_topic_cosine_max": max(off_topic),
        "alone": score(questions, alone),
        "hybrid": score(questions, hybrid),
    }


def main() -> int:
    from bench.recall.store import add_store_arguments, recall_store

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_store_arguments(parser)
    parser.add_argument("--probe", help="load one candidate and print its costs as JSON")
    parser.add_argument("--only", action="append", help="a candidate's name (repeatable)")
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe)))
        return 0
    from bench.recall.run import score
    from deja.query import History, Scope, SearchQuery
    from deja.semantic.vectors import EMBEDDED_ROLES

    store, questions = recall_store(args)
    work = Path(tempfile.mkdtemp(prefix="deja-models-"))
    os.environ["DEJA_SEMANTIC"] = "0"
    try:
        history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
        history.refresh()
        rows = records_of(history, EMBEDDED_ROLES)

        def words(text: str) -> list[tuple[str, str]]:
            found = history.search(SearchQuery(text, scope=Scope(), limit=50, count_all=False))
            return [(str(h.record_id), h.session_id) for h in found.hits]

        bm25 = score(questions, lambda t: list(dict.fromkeys(s for _, s in words(t))))
        results = {"BM25 (words only)": {"alone": bm25}}
        chosen = [c for c in CANDIDATES if not args.only or c.name in args.only]
        for candidate in chosen:
            try:
                found = probe_offline(candidate.name)
                if "error" not in found:
                    found |= measure(candidate, rows, questions, words)
            except ImportError as error:
                found = {"error": str(error)}
            results[candidate.name] = found
            print(candidate.name, json.dumps(found), flush=True)
        history.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(results, store.name, len(questions))
    return 0


def records_of(history, roles) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """(record id, session id, text) of the records the index embeds."""
    import sqlite3

    from deja.index.pack import register

    db = sqlite3.connect(history.home / "index.sqlite3")
    register(db)  # the records' text is read through `unpack` (index/pack.py)
    marks = ",".join("?" * len(roles))
    rows = db.execute(
        "SELECT r.id, r.session_id, f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
        f" WHERE r.role IN ({marks}) ORDER BY r.id",
        list(roles),
    ).fetchall()
    db.close()
    return [(str(rid), str(sid), str(body)) for rid, sid, body in rows]


def report(results: dict[str, dict[str, object]], store: str, count: int) -> None:
    print(f"\nModels on the recall set ({count} questions, store {store})")
    print(
        f"  {'model':<34} {'load s':>6} {'q p50':>6} {'rec/s':>6} {'cpu ms/rec':>10}"
        f" {'para R@5 alone/hyb':>19} {'exact R@5 alone/hyb':>20} {'offline':>8}"
    )
    for name, r in results.items():
        if "error" in r:
            print(f"  {name:<34} not measured: {r['error']}")
            continue
        alone, hybrid = r["alone"], r.get("hybrid", r["alone"])
        para = f"{alone['paraphrase'][0]:.1%} / {hybrid['paraphrase'][0]:.1%}"  # type: ignore[index]
        exact = f"{alone['exact'][0]:.1%} / {hybrid['exact'][0]:.1%}"  # type: ignore[index]
        offline = "—" if "connects" not in r else f"{r['connects']} conn"
        print(
            f"  {name:<34} {r.get('load_s', 0):>6.2f} {r.get('query_p50_ms', 0):>6.1f}"
            f" {r.get('records_per_s', 0):>6.0f} {r.get('cpu_ms_per_record', 0):>10.2f}"
            f" {para:>19} {exact:>20} {offline:>8}"
        )


if __name__ == "__main__":
    sys.exit(main())
