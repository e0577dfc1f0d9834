"""A partial pass (the watcher's, `deja capture`'s) looks at its own files only: a turn written
costs the same in a store of any size. A file of it that is gone is judged against the whole
listing, where an emptied or missing store is refused."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from deja.query import History, SearchQuery
from tests.support.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


def write(store: Path, session_id: str, text: str, mtime: float = PAST) -> Path:
    return write_session(store, session_doc(session_id, [user(text)]), mtime=mtime)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "continue"
    for n in range(4):
        write(root, f"s{n}", f"word{n} plan")
    return root


@pytest.fixture
def history(tmp_path: Path, store: Path) -> History:
    opened = History(home=tmp_path / "home", root=store, exclude_path=tmp_path / "exclude")
    opened.refresh()
    return opened


def no_listing(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a partial pass listed the whole store")


def test_a_partial_pass_reads_its_file_without_listing_the_store(
    history: History, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, "s1", "rewritten with zeppelin", mtime=time.time() - 60)
    write(store, "s9", "a new session about quinoa", mtime=time.time() - 60)
    write(store, "s2", "changed but not told", mtime=time.time() - 60)
    monkeypatch.setattr(os, "scandir", no_listing)
    report = history.refresh(only={"s1", "s9"})
    assert sorted(report.changed_ids) == ["s1", "s9"] and not report.errors
    assert history.search(SearchQuery("zeppelin", limit=5)).total == 1
    assert history.search(SearchQuery("quinoa", limit=5)).total == 1
    assert history.search(SearchQuery("told", limit=5)).total == 0  # not in `only`
    assert history.refresh(only={"s1"}).changed == 0  # as held: nothing read again


def test_a_gone_file_is_judged_on_the_whole_listing(history: History, store: Path) -> None:
    (store / "sessions" / "s3.json").unlink()
    report = history.refresh(only={"s3", "s0"})
    assert report.deleted == 1 and report.refused is None
    (kept,) = history.search(SearchQuery("word3", limit=5)).hits
    assert kept.deleted  # kept, marked deleted


def test_an_emptied_store_is_refused_by_a_partial_pass_too(history: History, store: Path) -> None:
    for path in (store / "sessions").glob("s*.json"):
        path.unlink()
    report = history.refresh(only={f"s{n}" for n in range(4)})
    assert report.refused is not None and report.refused.problem == "empty"
    assert report.deleted == 0
    assert history.search(SearchQuery("plan", limit=10)).total == 4


def test_a_partial_pass_says_what_a_whole_one_says_of_an_odd_file(
    history: History, store: Path, tmp_path: Path
) -> None:
    elsewhere = write(tmp_path / "other", "s5", "linked in")
    (store / "sessions" / "s5.json").symlink_to(elsewhere)
    partial = history.refresh(only={"s5"})
    whole = history.refresh()
    assert [n.message for n in partial.notes] == ["a symlink; not followed"]
    assert [(n.path, n.message) for n in partial.notes] == [
        (n.path, n.message) for n in whole.notes
    ]
