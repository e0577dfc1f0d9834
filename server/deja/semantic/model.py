"""The embedding model: WordLlama's static token vectors (MIT), read straight from the files its
wheel ships. Nothing here can reach the network: the tokenizer and weights are opened by path
(WordLlama's own loader looks under `tokenizer/` while the wheel ships `tokenizers/`, then falls
back to a hub download), and `wordllama` itself is never imported (its import pulls in pydantic
and its network code)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .identity import DIMENSIONS, MODEL_ID, MODEL_NAME, ModelUnavailable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"
# Static embeddings average token vectors: past the first few hundred words a record's meaning is
# already set, and tokenizing the rest (pasted logs, whole files) is most of the cost.
MAX_CHARS = 1000
# Longer "words" are blobs (base64, hashes, minified code): no meaning, and BPE's cost grows with
# the square of a word's length.
MAX_WORD = 40
# Token rows gathered (over the process's life) past which the whole table is made float32 once
# (an index pass, whose sessions each bring a few new words), rather than only the rows read
# from the mapped file (a query).
_WHOLE_TABLE = 4096


@dataclass(slots=True)
class Embedder:
    name: str
    dimensions: int
    table: Any  # numpy (vocabulary, ≥ dimensions): the mapped float16 file, or float32 in memory
    tokenizer: Any  # tokenizers.Tokenizer
    # Each word's token vectors summed, one row per word seen: history repeats its words (code,
    # logs, paths), so each is tokenized once. `words` maps a word to its row in `rows`.
    words: dict[str, int] = field(default_factory=dict)
    rows: Any = None
    gathered: int = 0  # token rows read from the table so far

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors, one row per text: the mean of its tokens' vectors, each word tokenized
        on its own as SentencePiece does (a text with no known token gives a zero row)."""
        with _embedding:  # the sidecar embeds on its index thread and answers on another
            return self._embed(texts)

    def _embed(self, texts: list[str]) -> Vectors:
        import numpy as np

        split = [
            [word for word in text[:MAX_CHARS].split() if len(word) <= MAX_WORD] for text in texts
        ]
        self._learn({word for words in split for word in words if word not in self.words})
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        index = self.words
        lengths = np.fromiter(map(len, split), np.int64, len(split))
        known = lengths > 0
        if known.any():
            flat = np.fromiter(
                (index[word] for words in split for word in words), np.int64, int(lengths.sum())
            )
            offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))[known]
            out[known] = np.add.reduceat(self.rows[flat], offsets, axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]

    def _learn(self, new: set[str]) -> None:
        import numpy as np

        if not new:
            return
        if len(self.words) + len(new) > _MAX_WORDS:
            self.words.clear()  # bounded memory: start over rather than track recency
            self.rows = None
        ordered = sorted(new)
        encodings = self.tokenizer.encode_batch_fast(
            [[word] for word in ordered], is_pretokenized=True, add_special_tokens=False
        )
        lengths = np.fromiter((len(e.ids) for e in encodings), np.int64, len(encodings))
        flat = np.fromiter(
            itertools.chain.from_iterable(e.ids for e in encodings), np.int64, int(lengths.sum())
        )
        np.clip(flat, 0, self.table.shape[0] - 1, out=flat)
        sums = np.zeros((len(ordered), self.dimensions), dtype=np.float32)
        known = lengths > 0
        if known.any():
            offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))[known]
            sums[known] = np.add.reduceat(self._table_rows(flat), offsets, axis=0)
        start = len(self.words)
        end = start + len(ordered)
        if self.rows is None or end > len(self.rows):
            # Room for twice as many: appending a few words per session must not copy them all.
            size = max(end, min(max(2 * end, 4096), _MAX_WORDS))
            grown = np.zeros((size, self.dimensions), dtype=np.float32)
            if self.rows is not None:
                grown[:start] = self.rows[:start]
            self.rows = grown
        self.rows[start:end] = sums
        self.words.update((word, start + row) for row, word in enumerate(ordered))

    def _table_rows(self, flat: Any) -> Any:
        """The float32 vectors of tokens `flat`, the same values however the table is held
        (float16 to float32 is exact)."""
        import numpy as np

        self.gathered += len(flat)
        if self.table.dtype != np.float32 and self.gathered >= _WHOLE_TABLE:
            self.table = np.ascontiguousarray(self.table[:, : self.dimensions], dtype=np.float32)
        if self.table.dtype == np.float32 and self.table.shape[1] == self.dimensions:
            return self.table[flat]
        return np.asarray(self.table[flat, : self.dimensions], dtype=np.float32)


# Words remembered per process (128 float32 each: about 50 MB at most).
_MAX_WORDS = 100_000


_lock = threading.Lock()
_embedding = threading.Lock()
_loaded: dict[str, Embedder] = {}


def package_dir() -> Path:
    """Where the `wordllama` wheel put its files, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the semantic extra is not installed: pip install 'deja[semantic]'")
    return Path(next(iter(spec.submodule_search_locations)))


def _mapped(weights: Path) -> Any:
    """The token table memory-mapped from the safetensors file (an 8-byte header length, a JSON
    header, then the raw little-endian tensors), so a query reads only its tokens' rows; None
    when it is not the float16 matrix expected (then `safetensors` reads it whole)."""
    import numpy as np

    try:
        with weights.open("rb") as file:
            (size,) = struct.unpack("<Q", file.read(8))
            entry = json.loads(file.read(size))[_TENSOR]
        rows, columns = (int(n) for n in entry["shape"])
        begin, end = (int(n) for n in entry["data_offsets"])
        if entry["dtype"] != "F16" or end - begin != rows * columns * 2 or columns < DIMENSIONS:
            return None
        offset = 8 + size + begin
        return np.memmap(weights, dtype="<f2", mode="r", offset=offset, shape=(rows, columns))
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def _read(weights: Path) -> Any:
    import numpy as np
    from safetensors.numpy import load_file

    return np.ascontiguousarray(load_file(str(weights))[_TENSOR][:, :DIMENSIONS], dtype=np.float32)


def load() -> Embedder:
    """The model, loaded once per process. Raises `ModelUnavailable`."""
    with _lock:
        if MODEL_NAME in _loaded:
            return _loaded[MODEL_NAME]
        base = package_dir()
        weights, tokenizer_file = base / WEIGHTS, base / TOKENIZER
        if not weights.is_file() or not tokenizer_file.is_file():
            raise ModelUnavailable(f"the semantic model's files are missing under {base}")
        # One thread: the words come in small batches, and on a busy machine handing each batch
        # to a thread pool cost more than tokenizing it (read by `tokenizers` at each call).
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import numpy  # noqa: F401
            from tokenizers import Tokenizer

            table = _mapped(weights)
            if table is None:
                table = _read(weights)
        except ImportError as error:
            raise ModelUnavailable(f"the semantic extra is incomplete: {error}") from error
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        embedder = Embedder(MODEL_ID, DIMENSIONS, table, tokenizer)
        _loaded[MODEL_NAME] = embedder
        return embedder
