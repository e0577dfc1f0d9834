"""The embedding model: WordLlama's static token vectors (MIT), read straight from the files its
wheel ships. Nothing here can reach the network: the tokenizer and weights are opened by path
(WordLlama's own loader looks under `tokenizer/` while the wheel ships `tokenizers/`, then falls
back to a hub download), and `wordllama` itself is never imported (its import pulls in pydantic
and its network code)."""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

MODEL_NAME = "wordllama-l2_supercat"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
# Matryoshka-trained: the first 128 of the 256 dimensions keep most of the recall at half the
# memory and scan time (bench/recall/run.py measures both).
DIMENSIONS = 128
# What the stored vectors are named by: a change of model or dimensions re-embeds everything.
MODEL_ID = f"{MODEL_NAME}-{DIMENSIONS}"
# Static embeddings average token vectors: past the first few hundred words a record's meaning is
# already set, and tokenizing the rest (pasted logs, whole files) is most of the cost.
MAX_CHARS = 1500


class ModelUnavailable(RuntimeError):
    """The semantic extra is not installed (or its files are incomplete)."""


@dataclass(slots=True)
class Embedder:
    name: str
    dimensions: int
    table: Any  # numpy float32 (vocabulary, dimensions)
    tokenizer: Any  # tokenizers.Tokenizer

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors, one row per text (a text with no known token gives a zero row)."""
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch_fast(
            [text[:MAX_CHARS] for text in texts], add_special_tokens=False
        )
        # Small batches keep the gathered token rows in cache: several times faster than one.
        for start in range(0, len(texts), _BATCH):
            ids = [e.ids for e in encodings[start : start + _BATCH]]
            lengths = np.array([len(row) for row in ids], dtype=np.int64)
            rows = np.flatnonzero(lengths)
            if not len(rows):
                continue
            flat = np.concatenate([np.asarray(ids[i], dtype=np.int64) for i in rows])
            np.clip(flat, 0, self.table.shape[0] - 1, out=flat)
            offsets = np.concatenate(([0], np.cumsum(lengths[rows])[:-1]))
            sums = np.add.reduceat(self.table[flat], offsets, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            out[start + rows] = sums / np.maximum(norms, 1e-12)
        return out


_BATCH = 64
_lock = threading.Lock()
_loaded: dict[str, Embedder] = {}


def package_dir() -> Path:
    """Where the `wordllama` wheel put its files, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the semantic extra is not installed: pip install 'deja[semantic]'")
    return Path(next(iter(spec.submodule_search_locations)))


def load() -> Embedder:
    """The model, loaded once per process. Raises `ModelUnavailable`."""
    with _lock:
        if MODEL_NAME in _loaded:
            return _loaded[MODEL_NAME]
        base = package_dir()
        weights, tokenizer_file = base / WEIGHTS, base / TOKENIZER
        if not weights.is_file() or not tokenizer_file.is_file():
            raise ModelUnavailable(f"the semantic model's files are missing under {base}")
        try:
            import numpy as np
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as error:
            raise ModelUnavailable(f"the semantic extra is incomplete: {error}") from error
        table = np.ascontiguousarray(
            load_file(str(weights))["embedding.weight"][:, :DIMENSIONS], dtype=np.float32
        )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        embedder = Embedder(MODEL_ID, DIMENSIONS, table, tokenizer)
        _loaded[MODEL_NAME] = embedder
        return embedder


def available() -> bool:
    """Whether the extra is installed (cheap: finds the package, loads nothing)."""
    return importlib.util.find_spec("wordllama") is not None
