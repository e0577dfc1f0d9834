"""`deja search`'s store listing taken beside its query (query/listing_ahead.py, issue 16): it
vouches for an answer exactly when `store_unchanged` would, and a store changed before the search
started is still searched after a pass."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from deja.query import History, listing_ahead
from tests.cli_run import deja_env, run_deja
from tests.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "continue"
    (root / "sessions").mkdir(parents=True)
    monkeypatch.setenv("DEJA_CONTINUE_ROOT", str(root))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no exclude list
    return root


@pytest.fixture
def history(tmp_path: Path, store: Path) -> History:
    opened = History(home=tmp_path / "deja-home", root=store)
    yield opened  # type: ignore[misc]
    opened.close()


def write(store: Path, session_id: str, text: str, mtime: float = PAST) -> Path:
    return write_session(store, session_doc(session_id, [user(text)]), mtime=mtime)


@pytest.fixture(params=[True, False], ids=["child", "thread"])
def in_child(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def vouches(history: History, in_child: bool) -> bool:
    listing = listing_ahead.ListingAhead(in_child=in_child)
    return listing.matches(history, listing.recorded(history))


def test_the_listing_vouches_exactly_when_the_store_is_unchanged(
    history: History, store: Path, in_child: bool
) -> None:
    write(store, "s1", "alpha")
    assert not vouches(history, in_child) and not history.store_unchanged()  # no pass yet
    history.refresh()
    assert vouches(history, in_child) and history.store_unchanged()
    write(store, "s1", "alpha beta", mtime=PAST + 5)
    assert not vouches(history, in_child) and not history.store_unchanged()
    history.refresh()
    assert vouches(history, in_child)
    write(store, "s2", "gamma")
    assert not vouches(history, in_child) and not history.store_unchanged()


def test_a_pass_committed_after_the_stamp_was_read_cannot_vouch(
    history: History, store: Path, in_child: bool
) -> None:
    write(store, "s1", "alpha")
    history.refresh()
    write(store, "s1", "alpha beta", mtime=PAST + 5)
    listing = listing_ahead.ListingAhead(in_child=in_child)
    known = listing.recorded(history)  # read before the query, as the search does
    history.refresh()  # another process's pass, between that read and the answer
    assert not listing.matches(history, known)
    assert listing.matches(history, listing.recorded(history))  # the same listing, read once


def test_a_listing_of_another_store_or_exclude_list_never_vouches(
    tmp_path: Path, history: History, store: Path, in_child: bool
) -> None:
    write(store, "s1", "alpha")
    history.refresh()
    other = History(home=tmp_path / "other-home", root=tmp_path / "elsewhere")
    excluding = History(home=tmp_path / "deja-home", root=store, exclude_path=tmp_path / "x")
    try:
        assert not vouches(other, in_child) and not vouches(excluding, in_child)
    finally:
        other.close(), excluding.close()


def test_a_session_only_the_changed_store_holds_is_found_by_its_id(
    tmp_path: Path, store: Path
) -> None:
    env = deja_env(store, tmp_path / "home")
    write(store, "c1-first-session", "first answer")
    assert run_deja(env, "index").returncode == 0
    # Written after the last pass: the index does not know the session `--session` names until
    # the pass the listing calls for has run.
    write(store, "c2-later-session", "later answer")
    result = run_deja(env, "search", "answer", "--all", "--session", "c2-later")
    assert result.returncode == 0, result.stderr
    assert "later [answer]" in result.stdout and "first" not in result.stdout
