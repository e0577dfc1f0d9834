"""The one planner (`index/plan.py`): a pass that goes by the stamp (issue 16) reports and leaves
in the index exactly what the pass with no stamp (every file judged against the whole `sessions`
table) gives."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from deja.index import PassReport, refresh, store_stamp
from deja.query import History, SearchQuery
from tests.support.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


def write(store: Path, session_id: str, text: str, mtime: float = PAST, **kw: Any) -> Path:
    return write_session(store, session_doc(session_id, [user(text)], **kw), mtime=mtime)


def broken(store: Path, session_id: str, mtime: float = PAST) -> None:
    write_session(store, b'{"sessionId": "x", "history": [', session_id, mtime=mtime)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "continue"
    for n in range(6):
        write(root, f"s{n}", f"word{n} plan")
    write(root, "hidden", "secret plan", workspace="/work/private")
    broken(root, "bad")
    (tmp_path / "exclude").write_text("/work/private\n")
    return root


def opened(tmp_path: Path, store: Path, name: str) -> History:
    return History(home=tmp_path / name, root=store, exclude_path=tmp_path / "exclude")


def said(report: PassReport) -> dict[str, Any]:
    """Everything a report says but its time, the changed ids as a set (their order is the
    full pass's table order)."""
    fields = report.as_dict()
    fields.pop("seconds")
    fields["changed_ids"] = sorted(fields["changed_ids"])
    return fields


def held(history: History) -> list[tuple[Any, ...]]:
    tables = (
        "SELECT id, size, mtime_ns, deleted, title FROM sessions ORDER BY id",
        "SELECT id, size, mtime_ns FROM excluded ORDER BY id",
        "SELECT id, size, mtime_ns, message FROM unreadable ORDER BY id",
        "SELECT session_id, count(*) FROM records GROUP BY session_id ORDER BY session_id",
    )
    return [tuple(history._db.execute(sql).fetchall()) for sql in tables]


def by_the_stamp(history: History, monkeypatch: pytest.MonkeyPatch) -> PassReport:
    """A pass that must not judge the files against the whole table."""

    def full_path(*args: object) -> None:
        raise AssertionError("the full path ran")

    with monkeypatch.context() as patch:
        patch.setattr(refresh, "_full_listing", full_path)
        return history.refresh()


def both_passes(
    by_stamp: History, full: History, monkeypatch: pytest.MonkeyPatch
) -> tuple[PassReport, PassReport]:
    """The same pass over the same store: one by the stamp, one with its stamp cleared."""
    with full._index.transaction() as db:
        store_stamp.clear(db)
    return by_the_stamp(by_stamp, monkeypatch), full.refresh()


def test_a_quiet_pass_by_the_stamp_says_what_the_full_pass_says(
    tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = opened(tmp_path, store, "home")
    first.refresh()
    first.forget_session("s5")
    first.refresh()
    assert first.store_unchanged()
    by_stamp = by_the_stamp(first, monkeypatch)
    assert by_stamp.read == 0 and by_stamp.sessions == 7  # eight files, one forgotten
    assert [Path(d.path).name for d in by_stamp.errors] == ["bad.json"]
    with first._index.transaction() as db:
        store_stamp.clear(db)
    assert said(first.refresh()) == said(by_stamp)
    assert first.store_unchanged()  # the full pass recorded it again


def test_a_pass_over_a_few_changes_by_the_stamp_matches_the_full_pass(
    tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    homes = [opened(tmp_path, store, name) for name in ("by-stamp", "full")]
    for history in homes:
        history.refresh()
        history.forget_session("s5")
        history.refresh()
    write(store, "s0", "rewritten plan with more words", mtime=PAST + 10)
    (store / "sessions" / "s1.json").unlink()
    write(store, "new", "brand new plan")
    broken(store, "s2", mtime=PAST + 20)
    write(store, "bad", "mended plan", mtime=PAST + 30)
    write(store, "more", "hidden too", workspace="/work/private/sub")
    os.utime(store / "sessions" / "s3.json", (PAST + 40, PAST + 40))  # touched only
    reports = both_passes(*homes, monkeypatch)
    assert reports[0].read == 6 and reports[0].deleted == 1
    assert said(reports[0]) == said(reports[1])
    assert held(homes[0]) == held(homes[1])
    assert homes[0].store_unchanged() and homes[1].store_unchanged()
    for history in homes:
        assert history.search(SearchQuery("rewritten", limit=5)).total == 1
        assert [hit.deleted for hit in history.search(SearchQuery("word1", limit=5)).hits] == [True]
    # And the pass after it: quiet both ways, the same words.
    assert said(homes[0].refresh()) == said(homes[1].refresh())


def test_a_file_too_fresh_to_vouch_for_is_read_again_by_the_next_pass(
    tmp_path: Path, store: Path
) -> None:
    history = opened(tmp_path, store, "home")
    history.refresh()
    write(store, "s0", "just written", mtime=time.time())
    assert history.refresh().read == 1
    stamp = store_stamp.recorded(history._db) or ""
    assert " -1/" in stamp or stamp.endswith(" -1")  # recorded, but vouching for nothing
    again = history.refresh()
    assert again.read == 1 and not history.store_unchanged()


def test_a_file_a_partial_pass_saw_go_comes_back_when_it_returns_unchanged(
    tmp_path: Path, store: Path
) -> None:
    """Deleted, marked deleted by the watcher's partial pass, then put back with the same
    bytes and mtime (a restore from the trash): the stamp must not vouch for it any more."""
    history = opened(tmp_path, store, "home")
    history.refresh()
    path = store / "sessions" / "s4.json"
    saved = path.read_bytes()
    path.unlink()
    assert history.refresh(only={"s4"}).deleted == 1
    path.write_bytes(saved)
    os.utime(path, (PAST, PAST))
    assert not history.store_unchanged()
    history.refresh()
    assert history.search(SearchQuery("word4", limit=5)).total == 1


def test_a_rebuild_and_an_emptied_store_take_the_full_path(tmp_path: Path, store: Path) -> None:
    history = opened(tmp_path, store, "home")
    history.refresh()
    assert history.refresh(rebuild=True).read == 7  # all but the excluded workspace's
    for path in (store / "sessions").glob("*.json"):
        if path.name != "sessions.json":
            path.unlink()
    report = history.refresh()
    assert report.refused is not None and report.refused.problem == "empty"


def test_a_file_known_unreadable_then_deleted_marks_its_session_gone_both_ways(
    tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stamp vouches for a live session's file the index knows unreadable (its last good
    version kept): when that file goes, the session is gone, by the stamp as without it."""
    homes = [opened(tmp_path, store, name) for name in ("by-stamp", "full")]
    for history in homes:
        history.refresh()
    broken(store, "s2", mtime=PAST + 20)
    for history in homes:
        assert [Path(d.path).name for d in history.refresh().errors] == ["bad.json", "s2.json"]
        assert history.store_unchanged()
    (store / "sessions" / "s2.json").unlink()
    reports = both_passes(*homes, monkeypatch)
    assert reports[0].deleted == 1 and reports[0].changed_ids == ["s2"]
    assert said(reports[0]) == said(reports[1])
    assert held(homes[0]) == held(homes[1])
