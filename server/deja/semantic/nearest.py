"""Nearest records by meaning: every vector of the index in one matrix (cached per index file
until a pass writes vectors again), scanned by brute force — a matrix product over tens of
thousands of rows takes a few milliseconds, less than an ANN index would save."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from .model import load
from .vectors import generation


@dataclass(slots=True)
class Matrix:
    key: tuple[str, int]
    ids: Any  # numpy int64 (n,)
    vectors: Any  # numpy float32 (n, dimensions)


_lock = threading.Lock()
_cache: dict[str, Matrix] = {}


def _matrix(db: sqlite3.Connection, dimensions: int) -> Matrix:
    import numpy as np

    path = str(db.execute("PRAGMA database_list").fetchone()[2])
    key = (path, generation(db))
    with _lock:
        cached = _cache.get(path)
        if cached is not None and cached.key == key:
            return cached
    rows = db.execute("SELECT record_id, vector FROM record_vectors").fetchall()
    ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    blob = b"".join(row[1] for row in rows)
    vectors = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dimensions)
    matrix = Matrix(key, ids, vectors)
    with _lock:
        _cache[path] = matrix
    return matrix


def nearest(db: sqlite3.Connection, text: str, count: int) -> list[tuple[int, float]]:
    """The `count` records closest to `text`, best first, with their cosine similarity."""
    import numpy as np

    model = load()
    matrix = _matrix(db, model.dimensions)
    if not len(matrix.ids):
        return []
    query = model.embed([text])[0]
    if not query.any():
        return []
    # einsum, not `@`: BLAS's threads on a busy 2-core machine made the product 4× slower.
    scores = np.einsum("ij,j->i", matrix.vectors, query)
    count = min(count, len(scores))
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top])]
    return [(int(matrix.ids[i]), float(scores[i])) for i in top]
