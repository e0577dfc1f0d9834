"""The durable index: one SQLite file in DEJA_HOME, kept in step with Continue's store by passes
(`refresh.py`). A crash at any point leaves the last consistent state."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from . import faults, store_identity, store_stamp
from .lock import LOCK_NAME, writer_lock
from .recovery import open_index, recover
from .schema import DB_NAME, connect_read_only, prepare_home

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from .pass_report import PassReport
    from .refresh import Progress
    from .schema import StrPath
    from .tombstones import Tombstone

# The pass and the tombstones (the reader, the ingest) load when first used: a search over an
# unchanged store needs neither (start-up cost).


class Index:
    """Owns the SQLite file. Writers take `index.lock` so only one pass runs at a time; readers
    never wait for a pass (WAL)."""

    def __init__(
        self,
        home: StrPath,
        root: StrPath,
        exclude_path: Path | None = None,
        *,
        for_reading: bool = False,
    ) -> None:
        """`for_reading`: the existing file opened read-only (no upgrade, no recovery; passes
        raise `IndexUnwritable`)."""
        # Kept as text: opening the index and a quiet `deja index` load no `pathlib`; `home`,
        # `root` and `path` give them as `Path`s.
        self.home_dir = os.fspath(home)
        self.root_dir = os.fspath(root)
        self.exclude_path = exclude_path
        self.db_path = os.path.join(self.home_dir, DB_NAME)
        prepare_home(self.home_dir)
        # `read_only`: why the index cannot be written (a full disk, a read-only home): it was
        # opened for reading, queries answer, passes raise `IndexUnwritable`.
        try:
            if for_reading:
                self.db, self.recovery = connect_read_only(self.db_path), None
                self.read_only: str | None = "opened for reading"
            else:
                self.db, self.recovery, self.read_only = open_index(self.db_path)
        except (sqlite3.Error, OSError) as error:
            said = self.user_error(error)  # damaged, and cannot be moved aside; or unwritable
            if said is None:
                raise
            raise said from None

    @property
    def home(self) -> Path:
        from pathlib import Path

        return Path(self.home_dir)

    @property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self.root_dir)

    @property
    def path(self) -> Path:
        """The index file."""
        from pathlib import Path

        return Path(self.db_path)

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def writer(self, *, wait: bool = True) -> Iterator[None]:
        """One writer across processes (CLI and sidecar share DEJA_HOME); without `wait`,
        `IndexBusy` when another process keeps it."""
        with writer_lock(os.path.join(self.home_dir, LOCK_NAME), wait=wait):
            yield

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # Tombstones -----------------------------------------------------------------------------

    def tombstones(self) -> list[Tombstone]:
        """What was forgotten, oldest first (sessions left out with their workspace are the
        workspace's)."""
        from . import tombstones

        return tombstones.list_tombstones(self.db)

    def workspace_sessions(self, directory: str) -> list[str]:
        """The indexed sessions of a workspace: those in it or in a folder inside it. Raises
        `NotIndexed` (saying why) when there are none."""
        from . import tombstones

        return tombstones.workspace_sessions(self.db, directory)

    def forget_session(self, session_id: str) -> None:
        from . import tombstones

        with self.writer(), self.transaction() as db:
            tombstones.forget_one(db, session_id)
            store_stamp.clear(db)

    def forget_workspace(self, directory: str) -> int:
        from deja.continue_store.workspace import normalize_workspace

        from . import tombstones

        workspace = normalize_workspace(directory)
        with self.writer(), self.transaction() as db:
            store_stamp.clear(db)
            return tombstones.forget_workspace(db, workspace)

    def undo_forget(self, session_or_workspace: str, directory: str | None = None) -> Tombstone:
        """Remove one tombstone so the next pass indexes what Continue's store still holds of
        it. `session_or_workspace`: a forgotten session id (or 8+ characters of one) or a
        forgotten workspace; `directory`: the same as an absolute path, when it is one."""
        from . import tombstones

        tomb = tombstones.find_tombstone(self.tombstones(), session_or_workspace, directory)
        with self.writer(), self.transaction() as db:
            tombstones.remove_tombstone(db, tomb)
            store_stamp.clear(db)
        return tomb

    # Passes ---------------------------------------------------------------------------------

    def refresh(
        self,
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        only: set[str] | None = None,
        accept_empty: bool = False,
        switch_store: bool = False,
        wait: bool = True,
    ) -> PassReport:
        """One pass: read what changed (everything with `rebuild`), keep what compaction took,
        the most recently written sessions first. A store folder that is missing or
        unreadable, or that lists no session file while the index holds live sessions (unless
        `accept_empty`), or another store than the index's own (unless `switch_store`), is not
        applied: the report says why in `refused` and the index is left as it was. Raises
        `IndexUnwritable` when the index cannot be written (the connection still reads) and
        `IndexDamaged` when the file is damaged (`rebuild` moves a damaged file aside first,
        keeping what it can read). Without `wait`, `IndexBusy` when another process is
        running a pass."""
        from .pass_report import PassReport
        from .refresh import run_pass

        if self.read_only is not None:
            raise faults.unwritable(self.home, self.read_only)
        try:
            if rebuild:
                self._recover_if_damaged()
            else:
                self.raise_noted_damage()
            refused, adopt = store_identity.judge(self.db, self.root, switch=switch_store)
            if refused is not None:
                return PassReport(refused=store_identity.refusal(refused))
            if adopt:
                with self.writer(), self.transaction() as db:
                    store_identity.record(db, self.root)
            return run_pass(
                self,
                rebuild=rebuild,
                progress=progress,
                only=only,
                accept_empty=accept_empty,
                wait=wait,
            )
        except (sqlite3.Error, OSError) as error:
            self._end_transaction()
            if faults.is_damage(error):
                raise faults.damaged(self.path, error) from None
            if faults.is_write_failure(error):
                raise faults.unwritable(
                    self.home, faults.why_unwritable(error, self.home)
                ) from None
            raise

    def raise_noted_damage(self) -> None:
        """`IndexDamaged` when a command met damage in this file (it may lie where a pass or
        `deja index` does not read) or a table's root page is damaged."""
        noted = faults.noted_damage(self.db_path) or faults.check_roots(self.db)
        if noted is not None:
            faults.note_damage(self.path, noted)
            raise faults.IndexDamaged(
                f"the index {self.path} is damaged ({noted}); {faults.REBUILD}"
            )

    def user_error(self, error: BaseException) -> Exception | None:
        """A query's SQLite error as the user's one line (damage noted for `deja index`), or
        None when it is not about the file."""
        if faults.is_damage(error):
            return faults.damaged(self.path, error)
        if isinstance(error, (sqlite3.Error, OSError)) and faults.is_write_failure(error):
            return faults.unwritable(self.home, faults.why_unwritable(error, self.home))
        return None

    def _end_transaction(self) -> None:
        """A failed write leaves the connection reading the index as it was."""
        with contextlib.suppress(sqlite3.Error):
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def _recover_if_damaged(self) -> None:
        """Before a rebuild: a damaged file (SQLite's quick check over every page, or a damage
        a command met) is moved aside and what it holds salvaged, as on open."""
        fault = faults.check_whole(self.db) or faults.noted_damage(self.path)
        if fault is None:
            return
        self.db.close()
        self.db, self.recovery = recover(self.path, fault, checked=True)

    def store_unchanged(self) -> bool:
        """The store is as the last whole pass saw it: by stat alone, no file read."""
        return store_stamp.unchanged(self.db, self.root_dir, self.exclude_path)
