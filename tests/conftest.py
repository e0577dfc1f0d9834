"""Every test searches by words only (`DEJA_SEMANTIC=0`, set for the whole session so that
module fixtures and the CLI, sidecar and MCP processes they start inherit it), so what they
assert does not depend on the semantic extra; tests marked `semantic` run with it on
(tests/test_semantic.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _words_only_by_default() -> Iterator[None]:
    previous = os.environ.get("DEJA_SEMANTIC")
    os.environ["DEJA_SEMANTIC"] = "0"
    yield
    if previous is None:
        os.environ.pop("DEJA_SEMANTIC", None)
    else:
        os.environ["DEJA_SEMANTIC"] = previous


@pytest.fixture(autouse=True)
def _semantic_when_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("semantic") is not None:
        monkeypatch.delenv("DEJA_SEMANTIC", raising=False)
