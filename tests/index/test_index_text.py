"""The searchable text kept once (index/searchable_text.py): FTS5 indexes `record_texts`, which
makes a command's, a tool call's and a read's text from the columns `records` already holds. An
external-content index must stay equal to what the view gives back, through every kind of
write: FTS5's own integrity check against the content says so."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from deja.index import SCHEMA_VERSION
from deja.query import History, SearchQuery
from tests.index.test_index import compact
from tests.support.storebuilder import assistant, call, session_doc, user, write_session


def consistent(db: sqlite3.Connection) -> None:
    """Raises when the FTS index differs from the text the view gives (rank 1: check content)."""
    db.execute("INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)")


def calls_doc(session_id: str, word: str) -> dict[str, object]:
    return session_doc(
        session_id,
        [
            user(f"run the {word} checks on parseConfig"),
            assistant(
                "",
                [
                    call("Bash", {"command": f"pytest -k {word}"}, f"1 failed: {word}Error"),
                    call("Read", {"file_path": f"src/{word}.py"}, "def main(): pass", call_id="c2"),
                    call("Grep", {"pattern": f"{word}Handler"}, "src/a.py:3", call_id="c3"),
                    call(
                        "Edit",
                        {"file_path": "src/a.py", "old_string": "x = 1", "new_string": "x = 2"},
                        "ok",
                        call_id="c4",
                    ),
                    call(
                        "Write",
                        {"file_path": "src/b.py", "content": f"{word} = 1\n"},
                        "",
                        call_id="c5",
                    ),
                    call(
                        "MultiEdit",
                        {
                            "file_path": "src/c.py",
                            "edits": [
                                {"old_string": "a", "new_string": f"{word}Alpha"},
                                *({"old_string": c, "new_string": c * 2} for c in "bcde"),
                            ],
                        },
                        "ok",
                        call_id="c6",
                    ),
                    call("Edit", {"file_path": "src/d.py"}, "refused", "canceled", call_id="c7"),
                    call(
                        "MultiEdit",
                        {
                            "file_path": "src/e.py",
                            "edits": [
                                {"old_string": "", "new_string": f"{word}_two"},
                                {"old_string": "x\n", "new_string": "y\n"},
                            ],
                        },
                        "",
                        call_id="c8",
                    ),
                ],
            ),
            assistant(f"Fixed the {word} test."),
        ],
    )


def test_text_is_kept_once_and_read_back_exactly(tmp_path: Path, store: Path) -> None:
    write_session(store, calls_doc("s1", "flaky"))
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        consistent(history._db)
        rows = history._db.execute(
            "SELECT r.role, r.body IS NULL, t.body FROM records r"
            " JOIN record_texts t ON t.id = r.id ORDER BY r.id"
        ).fetchall()
        made = {role for role, derived, _ in rows if derived}
        assert made == {"command", "edit", "read", "tool"}, rows  # a message's text is stored
        stored = [body for role, derived, body in rows if role == "edit" and not derived]
        assert len(stored) == 1 and "flakyAlpha" in stored[0]  # five hunks: its own text
        bodies = {role: body for role, _, body in rows}
        assert bodies["command"] == "pytest -k flaky\n1 failed: flakyError"
        assert bodies["read"].endswith("src/flaky.py") and bodies["read"].startswith("Read ")
        hits = history.search(SearchQuery("flakyError")).hits
        assert [hit.role for hit in hits] == ["command"] and "flakyError" in hits[0].snippet
        assert history.search(SearchQuery("Handler")).hits  # the camel-case parts still found
        found = history.search(SearchQuery("flaky", role="edit")).hits
        assert sorted(str(hit.file).rsplit("/", 1)[-1] for hit in found) == ["b.py", "c.py", "e.py"]
    finally:
        history.close()


def test_every_write_leaves_the_index_equal_to_its_text(tmp_path: Path, store: Path) -> None:
    hour_ago = time.time() - 3600
    path = write_session(store, calls_doc("s1", "flaky"), mtime=hour_ago)
    write_session(store, calls_doc("s2", "slow"), mtime=hour_ago)
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        path.write_text(path.read_text().replace("flaky", "brittle"))  # rewritten: re-ingested
        os.utime(path, (hour_ago + 1, hour_ago + 1))
        history.refresh()
        consistent(history._db)
        assert history.search(SearchQuery("brittleError")).hits
        assert not history.search(SearchQuery("flakyError")).hits
        compact(path, "Summary: brittle tests fixed.", later=[user("continue")])
        history.refresh()  # compacted: the old turns kept, marked
        consistent(history._db)
        kept = "SELECT count(*) FROM records WHERE session_id = 's1' AND compacted = 1"
        assert history._db.execute(kept).fetchone()[0] > 0
        assert history.search(SearchQuery("brittleError")).hits
        history.forget_session("s2")
        consistent(history._db)
        assert not history.search(SearchQuery("slowError")).hits
    finally:
        history.close()


def as_schema_1(db: sqlite3.Connection) -> None:
    """The index as schema 1 kept it: the text only in FTS5's own content table."""
    db.executescript(
        """
        CREATE TEMP TABLE texts AS SELECT id, body, parts FROM record_texts;
        DROP TABLE records_vocab;
        DROP TABLE records_fts;
        DROP VIEW record_texts;
        ALTER TABLE records RENAME TO records_2;
        CREATE TABLE records (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL,
            turn INTEGER NOT NULL, role TEXT NOT NULL, time REAL NOT NULL, tool TEXT,
            status TEXT, path TEXT, exit_code INTEGER, output TEXT, args TEXT, hunks TEXT,
            compacted INTEGER NOT NULL DEFAULT 0);
        INSERT INTO records SELECT id, session_id, turn, role, time, tool, status, path,
            exit_code, output, args, hunks, compacted FROM records_2;
        DROP TABLE records_2;
        CREATE VIRTUAL TABLE records_fts USING fts5(
            body, parts, tokenize = "unicode61 remove_diacritics 2");
        CREATE VIRTUAL TABLE records_vocab USING fts5vocab(records_fts, 'row');
        INSERT INTO records_fts (rowid, body, parts) SELECT id, body, parts FROM texts;
        UPDATE meta SET value = '1' WHERE key = 'schema';
        """
    )


def test_a_schema_1_index_keeps_its_compacted_text(tmp_path: Path, store: Path) -> None:
    path = write_session(store, calls_doc("s1", "flaky"))
    home = tmp_path / "home"
    history = History(home=home, root=store)
    history.refresh()
    compact(path, "Summary: flaky tests fixed.", later=[user("continue")])
    history.refresh()
    as_schema_1(history._db)
    history.close()
    upgraded = History(home=home, root=store)
    try:
        assert upgraded._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[
            0
        ] == str(SCHEMA_VERSION)
        consistent(upgraded._db)
        hits = upgraded.search(SearchQuery("flakyError")).hits  # only the old index held it
        assert [(hit.role, hit.compacted) for hit in hits] == [("command", True)]
        upgraded.refresh()
        consistent(upgraded._db)
        assert upgraded.search(SearchQuery("flakyError")).hits
        assert upgraded.search(SearchQuery("parse config")).hits
    finally:
        upgraded.close()
