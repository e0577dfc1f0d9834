"""Long text stored packed (index/pack.py, schema 3): what the reader gave is what every query
gives back — search, snippets, `show` — and FTS5's external content stays equal to its index;
an index of schema 2 upgrades in place, its text and FTS index untouched."""

from __future__ import annotations

import hashlib
import random
import sqlite3
import string
from pathlib import Path

import pytest

from deja.continue_store import read_store
from deja.index import SCHEMA_VERSION, batch, recovery
from deja.index.pack import PACK_MIN_BYTES, pack, unpack
from deja.index.recovery import WAL_KEEP_BYTES
from deja.index.searchable_text import derived_body
from deja.query import History, SearchQuery
from tests.index.test_index import compact
from tests.index.test_index_text import as_schema_1, consistent
from tests.support.storebuilder import assistant, call, session_doc, user, write_session


def log(word: str, lines: int) -> str:
    """A test run's output, `word` in its middle: long, and compressible as real logs are."""
    head = [f"tests/test_mod{n % 7}.py::test_case_{n} PASSED [{n % 100:3}%]" for n in range(lines)]
    return "\n".join([*head, f"E   {word}: retry budget spent", *head[::-1]])


def long_doc(session_id: str, word: str) -> dict[str, object]:
    code = "\n".join(f"def handler_{n}(event):\n    return event.get({n!r})" for n in range(80))
    return session_doc(
        session_id,
        [
            user(f"{log('context', 20)}\nwhy does {word}Marmalade fail?"),
            assistant(
                "",
                [
                    call("Bash", {"command": "pytest -x"}, log(f"{word}Timeout", 60)),
                    call("Read", {"file_path": "src/app.py"}, code, call_id="c2"),
                    call(
                        "Edit",
                        {
                            "file_path": "src/app.py",
                            "old_string": code,
                            "new_string": code.replace("event.get", f"{word}Quokka.get"),
                        },
                        "ok",
                        call_id="c3",
                    ),
                    call(  # longer than the reader keeps: the edit keeps its own (clipped) text
                        "Write",
                        {"file_path": "src/big.py", "content": code * 12 + f"\n{word}Tail = 1"},
                        "",
                        call_id="c4",
                    ),
                ],
            ),
            assistant(f"{log('summary', 15)}\nFixed the {word}Timeout."),
        ],
    )


def texts_of(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    return db.execute("SELECT id, body, parts FROM record_texts ORDER BY id").fetchall()


def fts_index(db: sqlite3.Connection) -> str:
    rows = db.execute("SELECT id, block FROM records_fts_data ORDER BY id").fetchall()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


@pytest.mark.parametrize(
    "text",
    ["", "short", "x" * PACK_MIN_BYTES, log("é中文🙂\x00", 30), "".join(map(chr, range(32, 3000)))],
)
def test_unpack_gives_back_what_pack_was_given(text: str) -> None:
    packed = pack(text)
    assert unpack(packed) == text
    if len(text) < PACK_MIN_BYTES:
        assert packed == text  # short text is stored as it is
    assert unpack(None) is None and pack(None) is None


def test_a_long_log_is_packed_to_a_fraction() -> None:
    text = log("zanzibar", 200)
    packed = pack(text)
    assert isinstance(packed, bytes) and len(packed) < len(text.encode()) / 5


def test_long_text_is_stored_packed_and_read_back_exactly(tmp_path: Path) -> None:
    store = tmp_path / "continue"
    write_session(store, long_doc("s1", "flaky"))
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        consistent(history._db)
        kinds = dict(
            history._db.execute(
                "SELECT role || ':' || coalesce(tool, ''), typeof(output) || typeof(hunks)"
                " || typeof(body) FROM records"
            ).fetchall()
        )
        assert kinds["command:Bash"] == "blobnullnull"  # its text made from command and output
        assert kinds["read:Read"] == "blobnullnull"
        assert kinds["edit:Edit"] == "textblobnull"  # "ok": too short to pack
        assert kinds["edit:Write"].endswith("blob")  # a clipped text is kept, packed
        assert kinds["user:"] == "nullnullblob"
        # The view gives exactly the reader's texts: what FTS5 indexed.
        (session,) = read_store(store).sessions
        assert [body for _, body, _ in texts_of(history._db)] == [r.text for r in session.records]
        shown = history.show("s1").records
        assert [(r.output, r.hunks) for r in shown] == [
            (r.output, [(h.replaced, h.written) for h in r.hunks]) for r in session.records
        ]
        for query, role in [
            ("flakyTimeout", "command"),
            ("flakyMarmalade", "user"),
            ("flaky quokka", "edit"),  # the camel-case parts of a packed hunk
            ("flakyTail", "edit"),
        ]:
            hits = history.search(SearchQuery(query)).hits
            assert role in [hit.role for hit in hits], query
        (hit,) = history.search(SearchQuery("flakyTimeout", role="command")).hits
        assert "flakyTimeout" in hit.snippet and "retry budget" in hit.snippet
    finally:
        history.close()


def as_schema_2(db: sqlite3.Connection) -> None:
    """The index as schema 2 kept it: every text as text, the view reading the columns, every
    item's fingerprint indexed."""
    db.executescript(
        f"""
        UPDATE records SET output = unpack(output), hunks = unpack(hunks), body = unpack(body);
        DROP VIEW record_texts;
        CREATE VIEW record_texts AS
            SELECT id, coalesce(body, {derived_body(packed=False)}) AS body, parts FROM records;
        DROP INDEX items_opening;
        CREATE INDEX items_fingerprint ON items(fingerprint);
        UPDATE meta SET value = '2' WHERE key = 'schema';
        """
    )


def test_a_schema_2_index_upgrades_in_place(tmp_path: Path) -> None:
    store, home = tmp_path / "continue", tmp_path / "home"
    path = write_session(store, long_doc("s1", "flaky"))
    write_session(store, long_doc("s2", "brittle"))
    history = History(home=home, root=store)
    history.refresh()
    compact(path, "Summary: flaky tests fixed.", later=[user("continue")])
    history.refresh()
    as_schema_2(history._db)
    consistent(history._db)  # a schema-2 index, equal to its text
    assert (
        history._db.execute(
            "SELECT count(*) FROM records WHERE typeof(output) = 'blob'"
        ).fetchone()[0]
        == 0
    )
    before, index_before = texts_of(history._db), fts_index(history._db)
    history.close()
    upgraded = History(home=home, root=store)
    try:
        db = upgraded._db
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(
            SCHEMA_VERSION
        )
        blobs = "SELECT count(*) FROM records WHERE typeof(output) = 'blob' AND session_id = ?"
        assert db.execute(blobs, ("s1",)).fetchone()[0] == 0  # what is stored stays as it is
        assert texts_of(db) == before and fts_index(db) == index_before  # no FTS rebuild
        indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert "items_opening" in indexes and "items_fingerprint" not in indexes
        consistent(db)
        hits = upgraded.search(SearchQuery("flakyTimeout")).hits  # only the old index holds it
        assert sorted((hit.role, hit.compacted) for hit in hits) == [
            ("assistant", True),
            ("command", True),
        ]
        # Kept whole: no file is to be read again (an upgrade that rebuilds forgets the sizes).
        assert db.execute("SELECT count(*) FROM sessions WHERE size = -1").fetchone()[0] == 0
        assert upgraded.refresh().changed == 0
        assert upgraded.search(SearchQuery("brittleQuokka")).hits
        rewritten = store / "sessions" / "s2.json"
        rewritten.write_text(rewritten.read_text().replace("brittle", "fragile"))
        upgraded.refresh()  # a session written after the upgrade is stored packed
        assert db.execute(blobs, ("s2",)).fetchone()[0] == 2
        consistent(db)
        assert upgraded.search(SearchQuery("fragileQuokka")).hits
        assert upgraded.search(SearchQuery("flakyTimeout", role="command")).hits
    finally:
        upgraded.close()


def wal_after_a_big_pass(store: Path, home: Path, words: list[str]) -> int:
    """The WAL's size after a pass over `store`'s big sessions, one transaction, and one more
    small pass: its write restarts the WAL that the first one's commit checkpointed."""
    history = History(home=home, root=store)
    try:
        history.refresh()
        write_session(store, session_doc("late", [user("one more")]), mtime=1_700_000_100)
        history.refresh()
        assert history.search(SearchQuery(words[7])).hits
        return history._index.path.with_name("index.sqlite3-wal").stat().st_size
    finally:
        history.close()


def test_the_wal_is_cut_back_after_a_big_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "continue"
    rng = random.Random(16)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(5000)]
    for n in range(30):
        text = " ".join(rng.choices(words, k=20_000))
        write_session(store, session_doc(f"s{n:02}", [user(text)]), mtime=1_700_000_000 + n)
    monkeypatch.setattr(batch, "BATCH_SECONDS", 3600.0)  # the whole first pass: one batch
    monkeypatch.setattr(recovery, "WAL_KEEP_BYTES", -1)  # SQLite's default: no limit
    unlimited = wal_after_a_big_pass(store, tmp_path / "unlimited", words)
    (store / "sessions" / "late.json").unlink()
    monkeypatch.setattr(recovery, "WAL_KEEP_BYTES", WAL_KEEP_BYTES)
    kept = wal_after_a_big_pass(store, tmp_path / "kept", words)
    assert unlimited > 3 * WAL_KEEP_BYTES  # the big pass's frames, kept till the file closes
    assert kept == WAL_KEEP_BYTES, (kept, unlimited)  # cut back when the small pass committed


def test_a_schema_1_index_is_rebuilt_with_its_compacted_text_packed(tmp_path: Path) -> None:
    store, home = tmp_path / "continue", tmp_path / "home"
    path = write_session(store, long_doc("s1", "flaky"))
    history = History(home=home, root=store)
    history.refresh()
    compact(path, "Summary: flaky tests fixed.", later=[user("continue")])
    history.refresh()
    as_schema_2(history._db)  # every text as text, then as schema 1 kept it
    as_schema_1(history._db)
    history.close()
    upgraded = History(home=home, root=store)
    try:
        kinds = upgraded._db.execute(
            "SELECT typeof(output) FROM records WHERE compacted = 1 AND role = 'command'"
        ).fetchall()
        assert kinds == [("blob",)]
        consistent(upgraded._db)
        hits = upgraded.search(SearchQuery("flakyTimeout", role="command")).hits
        assert [hit.compacted for hit in hits] == [True] and "flakyTimeout" in hits[0].snippet
    finally:
        upgraded.close()
