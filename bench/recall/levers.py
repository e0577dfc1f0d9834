"""Levers on the best packaged model (all-MiniLM-L6-v2 int8 ONNX, `encoders.py`), each applied to
every question alike: how a session's records add up, what a record's embedded text is, and how
the model's ranking is fused with wordllama's and the words'.

    python bench/recall/levers.py            # the full recall store (64 MB of noise)
    python bench/recall/levers.py --quick    # 8 MB of noise

Record vectors are cached under `--cache` (keyed by the model and the exact texts), so a lever
that only re-ranks costs no embedding and a text variant embeds only the texts it changes (one
thread), its CPU time kept beside the vectors. Recall@5 and MRR as `run.py`'s `score`; hybrid =
RRF (k = 60, 50 deep each) with the words' ranking (`deja search`, `DEJA_SEMANTIC=0`) at the
record level, or, for a session aggregate, of the two rankings of sessions. Last, each lever's
questions gained and lost against the record text alone.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one core: the machine is shared

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "server"), str(HERE.parent.parent)]

from bench.recall.encoders import Embed, _minilm_onnx, _wordllama  # noqa: E402
from bench.recall.run import score  # noqa: E402
from bench.recall.store import Question, add_store_arguments, recall_store  # noqa: E402
from deja.index.pack import register  # noqa: E402
from deja.query import History, Scope, SearchQuery  # noqa: E402
from deja.semantic.model import MAX_CHARS  # noqa: E402
from deja.semantic.vectors import EMBEDDED_ROLES  # noqa: E402

Ranking = list[tuple[str, float]]  # record keys with their score, best first
DEPTH, RRF_K, NEAREST = 50, 60, 1000
# A user turn put before the records that answer it is cut here, so it cannot crowd out the
# record itself (a quarter of what a record's vector reads).
CONTEXT_CHARS = MAX_CHARS // 4
# Session aggregates: weights of a session's best, second and third record scores.
AGGREGATES = {
    "best record (today)": (1.0,),
    "best + 0.5 × second": (1.0, 0.5),
    "mean of top 2": (1.0, 1.0),
    "best + 0.5 × 2nd + 0.25 × 3rd": (1.0, 0.5, 0.25),
}


@dataclass(frozen=True, slots=True)
class Record:
    key: str
    session: str
    role: str
    body: str
    title: str
    asked: str  # the last user turn before this record in its session ("" for a user record)


def records_of(history: History) -> list[Record]:
    """The records `semantic/vectors.py` embeds, with their session's title and asking turn."""
    db = sqlite3.connect(history.home / "index.sqlite3")
    register(db)
    titles = dict(db.execute("SELECT id, title FROM sessions").fetchall())
    rows = db.execute(
        "SELECT r.id, r.session_id, r.role, f.body FROM records r"
        " JOIN records_fts f ON f.rowid = r.id"
        f" WHERE r.role IN ({','.join('?' * len(EMBEDDED_ROLES))})"
        " ORDER BY r.session_id, r.turn, r.id",
        list(EMBEDDED_ROLES),
    ).fetchall()
    db.close()
    out: list[Record] = []
    asked, session = "", None
    for rid, sid, role, body in rows:
        if sid != session:
            asked, session = "", sid
        text = str(body or "")
        out.append(Record(str(rid), sid, role, text, str(titles.get(sid, "")), asked))
        if role == "user":
            asked = text
    return sorted(out, key=lambda r: int(r.key))


def texts(records: list[Record], variant: str) -> list[tuple[str, str, str]]:
    """(key, session, text embedded) per variant. A prefix counts inside MAX_CHARS (the
    encoder cuts the whole text there, as `vectors.py` would): a record longer than
    MAX_CHARS minus its prefix loses its tail, a shorter one nothing."""
    out = []
    for r in records:
        body = r.body
        if "asking user turn" in variant and r.role != "user" and r.asked:
            body = f"{r.asked[:CONTEXT_CHARS]}\n{body}"
        if variant.startswith("title +") and r.title:
            body = f"{r.title}\n{body}"
        out.append((r.key, r.session, body))
    if variant == "record + title as its own record":
        titled = {r.session: r.title for r in records if r.title}
        out += [(f"title:{sid}", sid, title) for sid, title in sorted(titled.items())]
    return out


class Cache:
    """Vectors of texts by one model, on disk: a text already embedded (by an earlier list) is
    not embedded again; each list's new texts are kept in one file with the CPU and wall time
    they took."""

    def __init__(self, folder: Path, model: str, embed: Embed) -> None:
        self.folder, self.model, self.embed = folder, model, embed
        self.known: dict[str, Any] = {}
        folder.mkdir(parents=True, exist_ok=True)

    def vectors(self, items: Sequence[str]) -> tuple[Any, dict[str, float]]:
        import numpy as np

        missing = [text for text in items if text not in self.known]
        meta = {"count": 0, "wall_s": 0.0, "cpu_s": 0.0, "chars": 0.0}
        if missing:
            digest = hashlib.sha1("\0".join([self.model, *missing]).encode()).hexdigest()
            path = self.folder / f"{self.model}-{digest[:16]}.npy"
            meta_path = path.with_suffix(".json")
            if path.exists() and meta_path.exists():
                matrix, meta = np.load(path), json.loads(meta_path.read_text())
            else:
                started, cpu = time.perf_counter(), time.process_time()
                matrix = np.asarray(self.embed(missing), dtype=np.float32)
                meta = {
                    "count": len(missing),
                    "wall_s": time.perf_counter() - started,
                    "cpu_s": time.process_time() - cpu,
                    "chars": sum(len(t[:MAX_CHARS]) for t in missing) / len(missing),
                }
                np.save(path, matrix)
                meta_path.write_text(json.dumps(meta))
            self.known |= dict(zip(missing, matrix, strict=True))
        return np.stack([self.known[text] for text in items]), meta


def by_cosine(matrix: Any, keys: list[str], query: Any) -> Ranking:
    import numpy as np

    cosines = matrix @ query
    order = np.argsort(-cosines)[:NEAREST]
    return [(keys[i], float(cosines[i])) for i in order]


def rrf(*rankings: Ranking) -> Ranking:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, (key, _) in enumerate(ranking[:DEPTH]):
            scores[key] = scores.get(key, 0.0) + 1 / (RRF_K + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])


def sessions(ranking: Ranking, session_of: dict[str, str], weights: Sequence[float]) -> list[str]:
    """Sessions by a weighted sum of their best records' scores (best first in `ranking`)."""
    tops: dict[str, list[float]] = {}
    for key, value in ranking:
        top = tops.setdefault(session_of[key], [])
        if len(top) < len(weights):
            top.append(value)
    total = {
        sid: sum(w * v for w, v in zip(weights, top, strict=False)) for sid, top in tops.items()
    }
    return sorted(total, key=lambda sid: -total[sid])  # stable: ties keep first-seen order


@dataclass(slots=True)
class Lever:
    name: str
    why: str
    rank: Callable[[str], Ranking]  # question -> record ranking of the model side
    weights: Sequence[float] = (1.0,)
    cost: dict[str, float] | None = None
    parts: tuple[Callable[[str], Ranking], ...] = ()  # fused flat with the words in hybrid


def evaluate(
    levers: list[Lever],
    questions: list[Question],
    words: Callable[[str], Ranking],
    session_of: dict[str, str],
) -> list[dict[str, Any]]:
    out = []
    for lever in levers:

        def alone(text: str, lever: Lever = lever) -> list[str]:
            return sessions(lever.rank(text), session_of, lever.weights)

        def hybrid(text: str, lever: Lever = lever) -> list[str]:
            if len(lever.weights) > 1:  # sessions by cosines first: RRF's scores are too flat
                by_model = sessions(lever.rank(text), session_of, lever.weights)
                by_words = list(dict.fromkeys(session_of[key] for key, _ in words(text)))
                fused = rrf([(s, 0.0) for s in by_model], [(s, 0.0) for s in by_words])
                return [s for s, _ in fused]
            parts = [part(text) for part in lever.parts] or [lever.rank(text)]
            return sessions(rrf(*parts, words(text)), session_of, lever.weights)

        result: dict[str, Any] = {"lever": lever.name, "why": lever.why, "cost": lever.cost}
        result |= {"alone": score(questions, alone), "hybrid": score(questions, hybrid)}
        result["found"] = [  # per question, alone: answered in the first 5 sessions
            bool(set(alone(q.text)[:5]) & set(q.answers)) for q in questions
        ]
        out.append(result)
        print(line(result), flush=True)
    return out


def line(r: dict[str, Any]) -> str:
    a, h = r["alone"], r["hybrid"]
    para = f"{a['paraphrase'][0]:.1%} ({round(a['paraphrase'][0] * a['paraphrase'][2])})"
    return (
        f"  {r['lever']:<58} {para:>12} {a['paraphrase'][1]:>6.3f}"
        f" {h['paraphrase'][0]:>7.1%} {a['exact'][0]:>7.1%} {h['exact'][0]:>7.1%}"
    )


def build_levers(
    records: list[Record], cache: Cache, light: Cache, questions: list[Question]
) -> list[Lever]:
    import numpy as np

    asked = [q.text for q in questions]
    query_of = dict(zip(asked, cache.vectors(asked)[0], strict=True))
    light_query_of = dict(zip(asked, light.vectors(asked)[0], strict=True))

    def ranker(variant: str, model: Cache, queries: dict[str, Any]) -> tuple[Any, dict[str, float]]:
        rows = texts(records, variant)
        matrix, meta = model.vectors([t for _, _, t in rows])
        keys = [k for k, _, _ in rows]
        matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        return (lambda text: by_cosine(matrix, keys, queries[text])), meta

    base, cost = ranker("record", cache, query_of)
    light_rank, light_cost = ranker("record", light, light_query_of)
    levers = [Lever("MiniLM, the record's text (MODELS.md's row)", "baseline", base, cost=cost)]
    for name, weights in list(AGGREGATES.items())[1:]:
        levers.append(Lever(f"1. sessions by {name}", "aggregate", base, weights, cost))
    combined = []
    for variant, why in (
        ("record + title as its own record", "one more vector a session"),
        ("title + record", "Continue's title summarises the session"),
        ("asking user turn + record", "an answer read with its question"),
        ("title + asking user turn + record", "both"),
    ):
        rank, meta = ranker(variant, cache, query_of)
        levers.append(Lever(f"2. {variant}", why, rank, cost=meta))
        combined.append(Lever(f"1+2. {variant}, best + 0.5 × second", why, rank, (1, 0.5), meta))
    levers.append(
        Lever(
            "3. RRF of MiniLM and wordllama 128d",
            "rank fusion",
            lambda t: rrf(base(t), light_rank(t)),
            cost={"cpu_s": cost["cpu_s"] + light_cost["cpu_s"], "count": cost["count"]},
            parts=(base, light_rank),
        )
    )
    return levers + combined


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_store_arguments(parser)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deja-levers")
    args = parser.parse_args()
    store, questions = recall_store(args)
    work = Path(tempfile.mkdtemp(prefix="deja-levers-"))
    os.environ["DEJA_SEMANTIC"] = "0"
    try:
        history = History(home=work / "home", root=store, exclude_path=work / "no-exclude")
        history.refresh()
        records = records_of(history)
        session_of = {r.key: r.session for r in records}
        session_of |= {f"title:{r.session}": r.session for r in records}

        def words(text: str) -> Ranking:
            found = history.search(SearchQuery(text, scope=Scope(), limit=DEPTH, count_all=False))
            for hit in found.hits:
                session_of.setdefault(str(hit.record_id), hit.session_id)
            return [(str(h.record_id), 1.0 / (n + 1)) for n, h in enumerate(found.hits)]

        folder = args.cache / store.name
        cache = Cache(folder, "minilm-int8-256", _minilm_onnx()[0])
        light = Cache(folder, "wordllama-128", _wordllama(128)[0])
        levers = build_levers(records, cache, light, questions)
        print(f"\nLevers ({len(questions)} questions, {len(records)} records, {store.name})")
        print(
            f"  {'lever':<58} {'para R@5':>12} {'MRR':>6} {'hybrid':>7} {'exact':>7} {'hybrid':>7}"
        )
        results = evaluate(levers, questions, words, session_of)
        history.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for r in results:
        cost = r["cost"] or {}
        if cost.get("count"):
            ms = cost["cpu_s"] * 1000 / cost["count"]
            print(f"  {r['lever']:<58} CPU {ms:.1f} ms a text embedded ({cost['count']} texts)")
    (folder / "results.json").write_text(json.dumps(results, indent=1))
    flips(results, questions)
    return 0


def flips(results: list[dict[str, Any]], questions: list[Question]) -> None:
    """Questions each lever finds that the baseline does not, and the reverse (alone)."""
    base = results[0]["found"]
    print("\n  paired with the baseline, alone: paraphrases gained / lost, exact gained / lost")
    for r in results[1:]:
        counts = []
        for kind in ("paraphrase", "exact"):
            pairs = zip(questions, base, r["found"], strict=True)
            chosen = [(b, f) for q, b, f in pairs if q.kind == kind]
            counts += [sum(f and not b for b, f in chosen), sum(b and not f for b, f in chosen)]
        print(f"  {r['lever']:<58} +{counts[0]} −{counts[1]}   +{counts[2]} −{counts[3]}")


if __name__ == "__main__":
    sys.exit(main())
