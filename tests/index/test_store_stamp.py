"""The store's stamp (issue 16): a command skips its pass only when the last whole pass saw the
store exactly as it is now; every change a pass would act on shows."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from deja.index import store_stamp
from deja.query import History, SearchQuery
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


def found(history: History, word: str) -> int:
    return history.search(SearchQuery(word, limit=50)).total


def write(store: Path, session_id: str, text: str, mtime: float = PAST) -> Path:
    return write_session(store, session_doc(session_id, [user(text)]), mtime=mtime)


def test_any_session_file_change_shows_and_the_list_alone_does_not(
    history: History, store: Path
) -> None:
    write(store, "s1", "alpha plan")
    path = write(store, "s2", "beta plan")
    assert not history.store_unchanged()  # never indexed
    history.refresh()
    assert history.store_unchanged()
    write(store, "s2", "gamma plan", mtime=PAST + 1)  # rewritten: same id, new size and mtime
    assert not history.store_unchanged()
    history.refresh()
    assert history.store_unchanged() and found(history, "gamma") == 1
    os.utime(path, (PAST + 2, PAST + 2))  # touched only: the pass re-reads it, so must we
    assert not history.store_unchanged()
    history.refresh()
    write(store, "s3", "delta plan")
    assert not history.store_unchanged()
    history.refresh()
    (store / "sessions" / "s1.json").unlink()
    assert not history.store_unchanged()
    report = history.refresh()
    assert report.deleted == 1 and history.store_unchanged()
    # The list is read by a pass only for files it reads: changed alone, a pass does nothing.
    (store / "sessions" / "sessions.json").write_text("[]")
    assert history.store_unchanged()
    assert history.refresh().changed == 0


def test_a_file_written_within_the_racy_window_is_not_vouched_for(
    history: History, store: Path
) -> None:
    path = write(store, "fresh", "just written", mtime=time.time())
    history.refresh()
    assert found(history, "written") == 1
    assert not history.store_unchanged()  # a same-size write in the same mtime tick would hide
    os.utime(path, (PAST, PAST))
    history.refresh()
    assert history.store_unchanged()


def test_forget_undo_exclude_list_and_size_cap_all_undo_the_stamp(
    tmp_path: Path, history: History, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, "keep", "kept words", mtime=PAST)
    write_session(
        store, session_doc("gone", [user("secret words")], workspace="/work/x"), mtime=PAST
    )
    history.refresh()
    history.forget_session("gone")
    assert not history.store_unchanged()
    history.refresh()
    assert history.store_unchanged()
    history.unforget("gone")
    assert not history.store_unchanged()  # the next pass must bring it back
    history.refresh()
    assert found(history, "secret") == 1 and history.store_unchanged()
    (tmp_path / "exclude").write_text("/work/x\n")
    assert not history.store_unchanged()
    history.refresh()
    assert found(history, "secret") == 0 and history.store_unchanged()
    monkeypatch.setenv("DEJA_MAX_SESSION_BYTES", "100")
    assert not history.store_unchanged()


def test_deja_search_answers_a_rewritten_file_through_the_quick_path(
    tmp_path: Path, store: Path
) -> None:
    env = deja_env(store, tmp_path / "home")
    write(store, "c1", "first answer")
    assert run_deja(env, "index").returncode == 0
    assert "first" in run_deja(env, "search", "first", "--all").stdout
    write(store, "c1", "second answer", mtime=PAST + 5)
    result = run_deja(env, "search", "second", "--all")
    assert result.returncode == 0 and "second" in result.stdout
    assert "nothing found" in run_deja(env, "search", "first", "--all").stdout


def test_the_store_named_through_a_link_or_as_text_gives_one_stamp(
    tmp_path: Path, store: Path
) -> None:
    """The stamp names the store as `Path.resolve` does, whether the folder is given as a `Path`
    or as text (the quiet `deja index` path), directly or through a symlink: a pass's stamp
    vouches for the next quiet look."""
    write(store, "s1", "alpha plan")
    link = tmp_path / "via-link"
    link.symlink_to(store, target_is_directory=True)
    named = [store, str(store), link, f"{link}/../{link.name}/"]
    contexts = {store_stamp.context(root, None) for root in named}
    assert len(contexts) == 1
    assert repr(str(store.resolve())) in contexts.pop()
    history = History(tmp_path / "home", link, tmp_path / "exclude")
    try:
        history.refresh()
        assert history.quiet_pass() is not None  # the stamp recorded through the link vouches
        write(store, "s1", "beta plan", mtime=PAST + 1)
        assert history.quiet_pass() is None  # and a change still shows
    finally:
        history.close()
