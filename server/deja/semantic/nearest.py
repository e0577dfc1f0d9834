"""Nearest records by meaning: every vector of the index in one matrix, scanned by brute force —
a matrix product over tens of thousands of rows takes a few milliseconds, less than an ANN index
would save. The matrix is a file beside the index (`index.sqlite3.vectors-*.npy`, counted in the
index's size), written by the first search after a pass changed the vectors, that each search
memory-maps: a `deja search` process pays for the pages the scan touches, not for reading every
vector out of SQLite again."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .model import load
from .vectors import generation

_INFIX = ".vectors-"


@dataclass(slots=True)
class Matrix:
    key: tuple[str, int, int]
    ids: Any  # numpy int64 (n,)
    vectors: Any  # numpy float32 (n, dimensions)


_lock = threading.Lock()
_cache: dict[str, Matrix] = {}


def _matrix(db: sqlite3.Connection, dimensions: int) -> Matrix:
    path = str(db.execute("PRAGMA database_list").fetchone()[2])
    # The file's inode tells a rebuilt index (whose generations start again) from the old one.
    inode = os.stat(path).st_ino if path else 0
    key = (path, inode, generation(db))
    with _lock:
        cached = _cache.get(path)
        if cached is not None and cached.key == key:
            return cached
    matrix = (_mapped(key, dimensions) if path else None) or _read(db, key, dimensions)
    with _lock:
        _cache[path] = matrix
    return matrix


def _files(key: tuple[str, int, int]) -> tuple[Path, Path]:
    path, inode, gen = key
    stem = f"{path}{_INFIX}{inode}-{gen}"
    return Path(f"{stem}.ids.npy"), Path(f"{stem}.f32.npy")


def _mapped(key: tuple[str, int, int], dimensions: int) -> Matrix | None:
    import numpy as np

    ids_file, vectors_file = _files(key)
    try:
        ids = np.load(ids_file, mmap_mode="r")
        vectors = np.load(vectors_file, mmap_mode="r")
    except (OSError, ValueError):  # not written yet, or cut short: read from the index
        return None
    if vectors.ndim != 2 or vectors.shape != (len(ids), dimensions):
        return None
    return Matrix(key, ids, vectors)


def _read(db: sqlite3.Connection, key: tuple[str, int, int], dimensions: int) -> Matrix:
    import numpy as np

    rows = db.execute("SELECT record_id, vector FROM record_vectors").fetchall()
    ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    blob = b"".join(row[1] for row in rows)
    vectors = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dimensions)
    if key[0]:
        _write(key, ids, vectors)
    return Matrix(key, ids, vectors)


def _write(key: tuple[str, int, int], ids: Any, vectors: Any) -> None:
    """The matrix beside the index for the next search (best effort: a read-only home or a full
    disk leaves each search reading from the index, as before)."""
    import numpy as np

    ids_file, vectors_file = _files(key)
    index = Path(key[0])
    for old in index.parent.glob(f"{index.name}{_INFIX}*.npy"):
        if old not in (ids_file, vectors_file):
            with contextlib.suppress(OSError):  # still open elsewhere (Windows): next time
                old.unlink()
    with contextlib.suppress(OSError):
        # The vectors last: a reader maps both only once the second is whole.
        for target, array in ((ids_file, ids), (vectors_file, vectors)):
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                np.save(out, array)
            os.replace(temporary, target)


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
    # einsum, not `@`: BLAS's threads fight the other processes on a busy machine for a product
    # this small.
    scores = np.einsum("ij,j->i", matrix.vectors, query)
    count = min(count, len(scores))
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top])]
    return [(int(matrix.ids[i]), float(scores[i])) for i in top]
