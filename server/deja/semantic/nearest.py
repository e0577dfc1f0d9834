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

from deja.in_slices import in_slices

from .vectors import LIGHT, VectorSet, changes_since, generation


@dataclass(slots=True)
class Matrix:
    """The vectors a search scans: the rows of a base (the file beside the index, or read from
    it) at generation `key[2]`'s or an earlier one, less the rows `dead` (changed since), plus
    the rows `added` since (`ids` covers both, in that order)."""

    key: tuple[str, int, int]
    ids: Any  # numpy int64 (n + added,)
    vectors: Any  # numpy float32 (n, dimensions)
    dead: Any = None  # numpy bool (n,) or None
    added: Any = None  # numpy float32 (added, dimensions) or None
    base: int = 0  # the generation the base rows are of


_lock = threading.Lock()
_cache: dict[tuple[str, str], Matrix] = {}
# Rows changed since a matrix's base, as a share of it, past which the base is made again.
REBUILD_SHARE = 0.1


def _matrix(db: sqlite3.Connection, vectors: VectorSet) -> Matrix:
    path = str(db.execute("PRAGMA database_list").fetchone()[2])
    # The file's inode tells a rebuilt index (whose generations start again) from the old one.
    inode = os.stat(path).st_ino if path else 0
    key = (path, inode, generation(db, vectors))
    with _lock:
        cached = _cache.get((path, vectors.table))
    if cached is not None and cached.key == key:
        return cached
    if cached is None or cached.key[:2] != key[:2]:
        cached = _mapped(key, vectors) if path else None
    matrix = (cached and _caught_up(db, cached, key, vectors)) or _read(db, key, vectors)
    with _lock:
        _cache[path, vectors.table] = matrix
    return matrix


def _caught_up(
    db: sqlite3.Connection, matrix: Matrix, key: tuple[str, int, int], vectors: VectorSet
) -> Matrix | None:
    """`matrix` brought to `key`'s generation from the log of what changed since its base; None
    when the log does not reach back to it or too much changed (then every vector is read)."""
    import numpy as np

    if matrix.key == key:
        return matrix
    since = changes_since(db, vectors)
    if since is None or matrix.base < since:
        return None
    changed = [
        int(row[0])
        for row in db.execute(
            f"SELECT DISTINCT record_id FROM {vectors.changes} WHERE generation >= ?",
            (matrix.base,),
        )
    ]
    rows = len(matrix.vectors)
    if len(changed) > REBUILD_SHARE * max(rows, 1):
        return None
    found: list[tuple[int, bytes]] = []
    for marks, ids in in_slices(changed):
        found += db.execute(
            f"SELECT record_id, vector FROM {vectors.table} WHERE record_id IN ({marks})"
            " ORDER BY record_id",
            ids,
        ).fetchall()
    base_ids = matrix.ids[:rows]
    dead = np.isin(base_ids, np.array(changed, dtype=np.int64))
    added_ids = np.fromiter((row[0] for row in found), dtype=np.int64, count=len(found))
    added = np.frombuffer(b"".join(row[1] for row in found), dtype=np.float32)
    return Matrix(
        key,
        np.concatenate([base_ids, added_ids]),
        matrix.vectors,
        dead,
        added.reshape(len(found), vectors.dimensions),
        matrix.base,
    )


def _files(key: tuple[str, int, int], vectors: VectorSet) -> tuple[Path, Path]:
    path, inode, gen = key
    stem = f"{path}{vectors.infix}{inode}-{gen}"
    return Path(f"{stem}.ids.npy"), Path(f"{stem}.f32.npy")


def _mapped(key: tuple[str, int, int], vectors: VectorSet) -> Matrix | None:
    """The file beside the index for this index file (whatever its generation: a newer one is
    caught up from the log), memory-mapped."""
    import numpy as np

    path, inode, _ = key
    index = Path(path)
    prefix = f"{index.name}{vectors.infix}{inode}-"
    generations = [
        int(stamp)
        for found in index.parent.glob(f"{prefix}*.f32.npy")
        if (stamp := found.name[len(prefix) : -len(".f32.npy")]).isdigit()
    ]
    if not generations:
        return None
    newest = (path, inode, max(generations))
    ids_file, matrix_file = _files(newest, vectors)
    try:
        ids = np.load(ids_file, mmap_mode="r")
        matrix = np.load(matrix_file, mmap_mode="r")
    except (OSError, ValueError):  # not written yet, or cut short: read from the index
        return None
    if matrix.ndim != 2 or matrix.shape != (len(ids), vectors.dimensions):
        return None
    return Matrix(newest, ids, matrix, base=newest[2])


def _read(db: sqlite3.Connection, key: tuple[str, int, int], vectors: VectorSet) -> Matrix:
    import numpy as np

    rows = db.execute(f"SELECT record_id, vector FROM {vectors.table}").fetchall()
    ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    blob = b"".join(row[1] for row in rows)
    matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), vectors.dimensions)
    if key[0]:
        _write(key, vectors, ids, matrix)
    return Matrix(key, ids, matrix, base=key[2])


def _write(key: tuple[str, int, int], vectors: VectorSet, ids: Any, matrix: Any) -> None:
    """The matrix beside the index for the next search (best effort: a read-only home or a full
    disk leaves each search reading from the index, as before)."""
    import numpy as np

    ids_file, matrix_file = _files(key, vectors)
    index = Path(key[0])
    for old in index.parent.glob(f"{index.name}{vectors.infix}*.npy"):
        if old not in (ids_file, matrix_file):
            with contextlib.suppress(OSError):  # still open elsewhere (Windows): next time
                old.unlink()
    with contextlib.suppress(OSError):
        # The vectors last: a reader maps both only once the second is whole.
        for target, array in ((ids_file, ids), (matrix_file, matrix)):
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                np.save(out, array)
            os.replace(temporary, target)


def nearest(
    db: sqlite3.Connection, text: str, count: int, vectors: VectorSet = LIGHT
) -> list[tuple[int, float]]:
    """The `count` records closest to `text` among the set's, best first, with their cosine
    similarity."""
    import numpy as np

    model = _model(vectors)
    matrix = _matrix(db, vectors)
    if not len(matrix.ids):
        return []
    query = model.embed([text])[0]
    if not query.any():
        return []
    # einsum, not `@`: BLAS's threads fight the other processes on a busy machine for a product
    # this small.
    scores = np.einsum("ij,j->i", matrix.vectors, query)
    if matrix.dead is not None:
        scores[matrix.dead] = -np.inf
    if matrix.added is not None and len(matrix.added):
        scores = np.concatenate([scores, np.einsum("ij,j->i", matrix.added, query)])
    count = min(count, int(np.isfinite(scores).sum()))
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top])]
    return [(int(matrix.ids[i]), float(scores[i])) for i in top]


def _model(vectors: VectorSet) -> Any:
    if vectors is LIGHT:
        from . import model

        return model.load()
    from . import deep_model

    return deep_model.load()
