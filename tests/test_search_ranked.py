"""Past `RANKED_MATCHES` matches only the newest are ranked (query/ranked.py): the total still
counts every match, a page past them is still served, and a filter picks among its own matches."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from deja.query import History, SearchQuery, ranked
from tests.storebuilder import assistant, session_doc, user, write_session


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> History:
    monkeypatch.setattr(ranked, "RANKED_MATCHES", 3)
    store = tmp_path / "continue"
    (store / "sessions").mkdir(parents=True)
    old = time.time() - 86_400
    for n in range(6):  # s0 indexed first: its records have the lowest ids
        doc = session_doc(f"s{n}", [user(f"the deadlock again, take {n}"), assistant("looked")])
        write_session(store, doc, mtime=old + n)
    opened = History(home=tmp_path / "home", root=store)
    opened.refresh()
    yield opened  # type: ignore[misc]
    opened.close()


def sessions(history: History, query: SearchQuery) -> list[str]:
    return [hit.session_id for hit in history.search(query).hits]


def test_the_newest_matches_are_ranked_and_all_counted(history: History) -> None:
    result = history.search(SearchQuery("deadlock", limit=2))
    assert result.total == 6
    assert {hit.session_id for hit in result.hits} <= {"s3", "s4", "s5"}
    every = sessions(history, SearchQuery("deadlock", limit=10))
    assert sorted(every) == [f"s{n}" for n in range(6)]  # a page past the newest: all ranked
    assert len(sessions(history, SearchQuery("deadlock", limit=2, offset=4))) == 2


def test_a_filter_ranks_among_its_own_matches(history: History) -> None:
    assert sessions(history, SearchQuery("deadlock", session="s0")) == ["s0"]
    assert sessions(history, SearchQuery("deadlock take 1")) == ["s1"]
