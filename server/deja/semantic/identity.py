"""Which model the stored vectors come from, apart from the model itself: a pass with nothing
to embed, and every search, read this and load no model (`model.py` brings dataclasses,
threading and pathlib)."""

from __future__ import annotations

MODEL_NAME = "wordllama-l2_supercat"
# Matryoshka-trained: the first 128 of the 256 dimensions keep most of the recall at half the
# memory and scan time (bench/recall/run.py measures both).
DIMENSIONS = 128
# What the stored vectors are named by: a change of model or dimensions re-embeds everything.
MODEL_ID = f"{MODEL_NAME}-{DIMENSIONS}"


class ModelUnavailable(RuntimeError):
    """The semantic extra is not installed (or its files are incomplete)."""
