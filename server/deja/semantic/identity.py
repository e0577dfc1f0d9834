"""Which models the stored vectors come from, apart from the models themselves: a pass with
nothing to embed, and every search, read this and load no model (`model.py` brings dataclasses,
threading and pathlib; `deep_model.py` brings onnxruntime)."""

from __future__ import annotations

MODEL_NAME = "wordllama-l2_supercat"
# Matryoshka-trained: the first 128 of the 256 dimensions keep most of the recall at half the
# memory and scan time (bench/recall/run.py measures both).
DIMENSIONS = 128
# What the stored vectors are named by: a change of model or dimensions re-embeds everything.
MODEL_ID = f"{MODEL_NAME}-{DIMENSIONS}"

# The deep model: a small transformer that finds paraphrases the static model misses, too slow
# for a one-shot process or the index pass, so made by a background pass in the long-running
# doors and asked only there (`deep_pass.py`).
DEEP_MODEL_NAME = "all-MiniLM-L6-v2-int8"
DEEP_DIMENSIONS = 384
# Word pieces read of a text: past them a transformer's cost grows and the meaning is set.
DEEP_MAX_TOKENS = 256
# The text each record is embedded as (`deep_pass.record_text`) is part of its identity: a
# change of recipe re-embeds everything.
DEEP_RECIPE = "asking-250"
DEEP_MODEL_ID = f"{DEEP_MODEL_NAME}-{DEEP_MAX_TOKENS}-{DEEP_RECIPE}"


class ModelUnavailable(RuntimeError):
    """The semantic extra is not installed (or its files are incomplete)."""
