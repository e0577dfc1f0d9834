"""The model's token table is memory-mapped from its safetensors file: a query reads the rows of
its tokens, an index pass makes the whole table float32 once; either way every vector is the one
the whole table read by `safetensors` gives."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("wordllama")

from deja.semantic import identity, model  # noqa: E402

TEXTS = ["how did we make the slow nightly build faster", "Ünïcödé naïve café ✓", "", "x" * 41]


def whole_table_embedder() -> model.Embedder:
    from safetensors.numpy import load_file

    loaded = model.load()
    table = load_file(str(model.package_dir() / model.WEIGHTS))["embedding.weight"]
    whole = np.ascontiguousarray(table[:, : identity.DIMENSIONS], dtype=np.float32)
    return model.Embedder(loaded.name, loaded.dimensions, whole, loaded.tokenizer)


def mapped_embedder() -> model.Embedder:
    loaded = model.load()
    mapped = model._mapped(model.package_dir() / model.WEIGHTS)
    assert mapped is not None and mapped.dtype == np.float16  # the file itself, not a copy
    return model.Embedder(loaded.name, loaded.dimensions, mapped, loaded.tokenizer)


def test_a_query_s_few_rows_read_from_the_mapped_file_are_the_whole_table_s() -> None:
    mapped = mapped_embedder()
    assert np.array_equal(mapped.embed(TEXTS), whole_table_embedder().embed(TEXTS))
    assert mapped.table.dtype == np.float16  # a few words: only their rows were converted


def test_a_pass_s_many_words_make_the_table_float32_once_with_the_same_vectors() -> None:
    many = [" ".join(f"w{n}x{k}" for k in range(40)) for n in range(200)] + TEXTS
    mapped = mapped_embedder()
    assert np.array_equal(mapped.embed(many), whole_table_embedder().embed(many))
    assert mapped.table.dtype == np.float32


def test_weights_not_as_expected_are_read_whole(tmp_path: Path) -> None:
    header = {"embedding.weight": {"dtype": "F32", "shape": [4, 256], "data_offsets": [0, 4096]}}
    raw = json.dumps(header).encode()
    odd = tmp_path / "odd.safetensors"
    odd.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(4096))
    assert model._mapped(odd) is None
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(b"\x05")
    assert model._mapped(cut) is None


def test_a_meaning_search_does_not_load_safetensors(tmp_path: Path) -> None:
    probe = (
        "import sys; from deja.semantic import model; e = model.load(); e.embed(['slow build']);"
        "print(sorted(m for m in ('safetensors', 'safetensors.numpy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
