"""Every test searches by words only (`DEJA_SEMANTIC=0`, set for the whole session so that
module fixtures and the CLI, sidecar and MCP processes they start inherit it), so what they
assert does not depend on the semantic extra; tests marked `semantic` run with it on
(tests/semantic/test_semantic.py)."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from deja.query import History


@pytest.fixture(autouse=True, scope="session")
def _one_clock_zone() -> Iterator[None]:
    """Local times (listings, `show`) in UTC whatever the machine's zone, here and in every
    process a test starts: committed output holds them. A test about zones sets its own."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if previous is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = previous
    time.tzset()


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


@pytest.fixture
def steady_path() -> Iterator[Path]:
    """A new folder whose path has the same length and the same words on every machine
    (`/tmp/deja-<32 hex digits>`), for tests that compare against committed output holding
    what follows from a path: a file's size, a text's length, which words a snippet shows.
    pytest's own folders vary with `--basetemp`, the user's name (`pytest-of-<user>`) and how
    many runs came before (`pytest-0`, `pytest-12`)."""
    path = Path("/tmp") / f"deja-{uuid.uuid4().hex}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """An empty Continue root (`<root>/sessions`). A module whose tests start from sessions
    already there defines its own `store`; `history` then indexes that one."""
    root = tmp_path / "continue"
    (root / "sessions").mkdir(parents=True)
    return root


@pytest.fixture
def history(tmp_path: Path, store: Path) -> Iterator[History]:
    """Deja's index of `store`, with its own home and privacy list under `tmp_path`."""
    opened = History(home=tmp_path / "deja-home", root=store, exclude_path=tmp_path / "exclude")
    yield opened
    opened.close()
