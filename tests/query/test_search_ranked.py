"""Past `RANKED_MATCHES` matches only the newest are ranked (query/ranked.py): the total still
counts every match, a page past them is still served, and a filter picks among its own matches."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from deja.query import History, SearchQuery, ranked
from tests.support.storebuilder import assistant, session_doc, user, write_session


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> History:
    monkeypatch.setattr(ranked, "RANKED_MATCHES", 3)
    store = tmp_path / "continue"
    (store / "sessions").mkdir(parents=True)
    old = time.time() - 86_400
    for n in range(6):
        doc = session_doc(f"s{n}", [user(f"the deadlock again, take {n}"), assistant("looked")])
        write_session(store, doc, mtime=old + n)
    opened = History(home=tmp_path / "home", root=store)
    opened.refresh()
    yield opened  # type: ignore[misc]
    opened.close()


def sessions(history: History, query: SearchQuery) -> list[str]:
    return [hit.session_id for hit in history.search(query).hits]


def by_age(history: History) -> list[str]:
    """The sessions, newest records first (the pass reads files in no set order)."""
    rows = history._db.execute(
        "SELECT session_id FROM records WHERE role = 'user' ORDER BY id DESC"
    )
    return [row[0] for row in rows]


def test_the_newest_matches_are_ranked_and_all_counted(history: History) -> None:
    result = history.search(SearchQuery("deadlock", limit=3))
    assert result.total == 6
    assert {hit.session_id for hit in result.hits} == set(by_age(history)[:3])
    every = sessions(history, SearchQuery("deadlock", limit=10))
    assert sorted(every) == [f"s{n}" for n in range(6)]  # a page past the newest: all ranked
    assert len(sessions(history, SearchQuery("deadlock", limit=2, offset=4))) == 2


def test_a_filter_ranks_among_its_own_matches(history: History) -> None:
    oldest = by_age(history)[-1]
    assert sessions(history, SearchQuery("deadlock", session=oldest)) == [oldest]
    assert sessions(history, SearchQuery(f"deadlock take {oldest[1:]}")) == [oldest]


def test_words_joined_by_or_rank_every_match(history: History) -> None:
    # The oldest session's number is in it alone: BM25 over every match puts it first.
    oldest = by_age(history)[-1]
    assert sessions(history, SearchQuery(f"deadlock OR {oldest[1:]}", limit=1)) == [oldest]


def test_fewer_matches_than_the_bound_are_counted_by_the_floor_walk_exactly(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked, "RANKED_MATCHES", 50)  # all 6 matches ranked; a page of 2 is full
    assert history.search(SearchQuery("deadlock", limit=2)).total == 6
    assert history.search(SearchQuery("deadlock", role="user", limit=2)).total == 6
    # A fork's copy of its parent's turns is left out of hits and total alike, though FTS5
    # alone counts it.
    newest = by_age(history)[0]
    history._db.execute("INSERT INTO forks VALUES (?, 'elsewhere', 1, 0)", (newest,))
    result = history.search(SearchQuery("deadlock", limit=2))
    assert result.total == 5 and newest not in sessions(history, SearchQuery("deadlock"))
    assert history.search(SearchQuery("deadlock", role="user", limit=2)).total == 5
