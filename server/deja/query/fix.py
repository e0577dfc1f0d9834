"""What fixed this before (`deja fix`): past failures whose error signature matches a given error
text and, for each, what made it go away in that session.

A failure is a call that did not work: a command with a non-zero exit Continue recorded, or any
call Continue marked errored. Its fix is what the session did after it — the edits and other
commands — up to the next run of the same (or a similar) command that no longer shows the error;
without such a run, up to the last step after which the error never appeared again (a fix not
confirmed by a re-run, and said so). A failure whose error is still there at the end of the
session was never fixed. Signatures are computed when asked (`error_signature.py`), from the
tool output the index holds.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field

from deja.continue_store.workspace import relative_to_workspace
from deja.errors import DejaError
from deja.index.forks import own_records
from deja.index.pack import as_text, failed_sql

from .error_signature import Signature, looks_like_error, signature
from .rows import named
from .scope import Scope

MAX_STEPS = 8
# A common error can match hundreds of past failures: what became of them is followed for this
# many of the closest, most recent ones (`total` counts them all).
MAX_CHAINS = 40
# An asked error all of whose words a past one has (a pasted last line of a long output) is
# nearly the same error.
CONTAINED = 0.9
TOOL_ROLES = ("command", "tool", "read", "edit")
_FAILED = failed_sql("r.")


@dataclass(frozen=True, slots=True)
class FixStep:
    """One thing the session did between the failure and its end: an edit or a command."""

    turn: int
    time: float
    role: str
    tool: str | None
    what: str  # the command line, or the path relative to the workspace
    status: str | None
    exit_code: int | None


@dataclass(slots=True)
class PastFailure:
    session_id: str
    title: str
    workspace: str
    project: str
    turn: int
    time: float
    call: str  # the command line, or `Tool path`
    exit_code: int | None
    status: str | None
    error: str  # the failure's signature lines
    similarity: float
    attempts: int  # runs of it that failed the same way
    fixed: bool
    confirmed: bool  # a later run of the same command passed
    steps: list[FixStep] = field(default_factory=list)
    passed_by: FixStep | None = None
    same_fix: int = 0  # other past failures fixed the same way
    score: float = 0.0


@dataclass(slots=True)
class FixResult:
    error: str  # the asked error's signature lines
    failures: list[PastFailure]
    total: int  # matching failures before the limit
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Row:
    id: int
    turn: int
    time: float
    role: str
    tool: str | None
    status: str | None
    path: str | None
    exit_code: int | None
    args: str | None
    output: str | None

    @property
    def failed(self) -> bool:
        return self.status == "errored" or (self.exit_code is not None and self.exit_code != 0)

    def call(self, workspace: str) -> str:
        if self.role == "command":
            return self.args or ""
        where = relative_to_workspace(self.path, workspace) if self.path else ""
        if self.role == "edit" and where:
            return where
        return f"{self.tool or self.role} {where}".strip()


def _row(row: sqlite3.Row) -> _Row:
    return _Row(
        row["id"], row["turn"], row["time"], row["role"], row["tool"], row["status"],
        row["path"], row["exit_code"], row["args"], row["output"],
    )  # fmt: skip


def _same_call(failure: _Row, other: _Row) -> bool:
    """A re-run: the same command, or the same program and first argument; for another tool,
    the same tool on the same file (or with the same arguments)."""
    if failure.role != other.role or failure.tool != other.tool:
        return False
    if failure.role == "command":
        a, b = (failure.args or "").split(), (other.args or "").split()
        return a == b or (len(a) > 1 and a[:2] == b[:2])
    return (failure.path or failure.args) == (other.path or other.args)


def _step(record: _Row, workspace: str) -> FixStep:
    return FixStep(
        record.turn, record.time, record.role, record.tool, record.call(workspace),
        record.status, record.exit_code,
    )  # fmt: skip


# Signatures already computed, by record and text: a long-running door (the sidecar asked after
# every failed terminal command, MCP) computes each past failure's once. Bounded; no text kept.
_KNOWN: dict[tuple[int, int, int], Signature] = {}
MAX_KNOWN = 50_000


class _Signatures:
    """Each record's signature computed once (a failure is both a candidate and, for an earlier
    one of its session, a later sight of the error)."""

    def of(self, record: _Row) -> Signature:
        text = record.output or record.status or ""
        key = (record.id, len(text), hash(text))
        found = _KNOWN.get(key)
        if found is None:
            if len(_KNOWN) >= MAX_KNOWN:
                _KNOWN.clear()
            found = _KNOWN[key] = signature(text)
        return found

    def shows(self, record: _Row, error: Signature) -> bool:
        """Whether a failed record shows `error` again."""
        text = record.output or ""
        return bool(text) and error.may_be_in(text) and self.of(record).close_to(error)


def _chain(
    failure: _Row, later: list[_Row], error: Signature, workspace: str, signatures: _Signatures
) -> PastFailure:
    """What happened to one failure in the rest of its session (the fields about the match are
    filled by the caller). The fix is what came after the error was last seen."""
    done = PastFailure(
        "", "", workspace, "", failure.turn, failure.time, failure.call(workspace),
        failure.exit_code, failure.status, error.text, 0.0, 1, fixed=False, confirmed=False,
    )  # fmt: skip
    steps: list[tuple[int, FixStep]] = []
    last_seen = -1  # position in `later` of the last record still showing the error
    for position, record in enumerate(later):
        showing = record.failed and signatures.shows(record, error)
        if _same_call(failure, record) and not showing:
            done.fixed = done.confirmed = True
            done.passed_by = _step(record, workspace)
            break
        if showing:
            last_seen = position
            done.attempts += _same_call(failure, record)
        elif record.role in ("edit", "command") and record.status == "done":
            steps.append((position, _step(record, workspace)))
    after = [step for position, step in steps if position > last_seen]
    # Without a passing re-run, what came after the last sight of the error is the fix, unconfirmed.
    done.fixed = done.fixed or bool(after)
    done.steps = after[-MAX_STEPS:]
    return done


def _heavy(asked: Signature) -> list[str]:
    """The asked error's two weightiest words: a close signature shares most of its weight."""
    return [
        w for w, _ in sorted((w for w in asked.words if "<" not in w[0]), key=lambda w: -w[1])[:2]
    ]


def _candidates(
    db: sqlite3.Connection, scope: Scope, heavy: list[str]
) -> list[tuple[sqlite3.Row, _Row]]:
    """Failed calls in scope whose text holds one of the `heavy` words (`_heavy`): SQLite's
    `instr` keeps the rest out of Python. A fork's copy of its parent's turns is found once,
    under the parent."""
    scope_sql, params = scope.sql("s.workspace")
    where = f"AND {scope_sql}" if scope_sql else ""
    text = f"lower(coalesce({as_text('r.output')}, r.status, ''))"
    words = " OR ".join(f"instr({text}, ?) > 0" for _ in heavy) or "1"
    roles = ",".join(f"'{role}'" for role in TOOL_ROLES)
    rows = named(db).execute(
        "SELECT r.id, r.turn, r.time, r.role, r.tool, r.status, r.path, r.exit_code, r.args,"
        " unpack(r.output) AS output, r.session_id, s.title, s.workspace, s.project FROM records r"
        " JOIN sessions s ON s.id = r.session_id"
        f" WHERE r.role IN ({roles}) AND {_FAILED} AND ({words}) AND {own_records('r')} {where}"
        " ORDER BY r.session_id, r.turn, r.id",
        [*heavy, *params],
    )
    return [(row, _row(row)) for row in rows]


def _session_records(db: sqlite3.Connection, session_id: str) -> list[_Row]:
    roles = ",".join(f"'{role}'" for role in TOOL_ROLES)
    rows = named(db).execute(
        "SELECT id, turn, time, role, tool, status, path, exit_code, args,"
        f" CASE WHEN {_FAILED} THEN unpack(output) END AS output FROM records r"
        f" WHERE session_id = ? AND role IN ({roles}) ORDER BY turn, id",
        (session_id,),
    )
    return [_row(row) for row in rows]


def _fix_key(failure: PastFailure) -> tuple[str, ...]:
    """What a fix did, comparable across sessions: the files edited and the programs run."""
    if not failure.fixed:
        return ()
    parts = {
        f"edit {s.what}" if s.role == "edit" else " ".join(s.what.split()[:2])
        for s in failure.steps
    }
    return tuple(sorted(parts))


def _rank(failures: list[PastFailure], now: float) -> None:
    """Similarity first, then a fix (one confirmed by a re-run more), how often that same fix
    worked, and how recent it is."""
    keys = Counter(_fix_key(f) for f in failures if f.fixed and f.steps)
    for failure in failures:
        key = _fix_key(failure)
        failure.same_fix = keys[key] - 1 if key else 0
        age_days = max(now - failure.time, 0.0) / 86_400
        failure.score = (
            failure.similarity
            + (0.3 if failure.confirmed else 0.2 if failure.fixed else 0.0)
            + 0.1 * min(failure.same_fix, 4) / 4
            + 0.05 / (1.0 + math.log1p(age_days))
        )
    failures.sort(key=lambda f: (-f.score, -f.time))


def find_fixes(db: sqlite3.Connection, error_text: str, scope: Scope, limit: int = 10) -> FixResult:
    """Past failures whose signature is the same as or close to `error_text`'s, best first."""
    # Lone surrogates (bytes a terminal could not decode) would not survive the JSON answers.
    text = error_text.encode("utf-8", "replace").decode("utf-8")
    asked = signature(text)
    if not asked.lines:
        raise DejaError("give the text of an error (nothing in it says what failed)")
    signatures = _Signatures()
    matches = _matches(_candidates(db, scope, _heavy(asked)), asked, signatures)
    if not matches and len(text.splitlines()) > 1:
        # Output with stdout mixed in (`cmd 2>&1 | deja fix -`): Continue recorded only stderr,
        # so the lines that look like the error are tried alone, over one query's candidates.
        alone = [s for s in dict.fromkeys(map(signature, error_lines(text))) if s.lines]
        heavy = sorted({word for line in alone for word in _heavy(line)})
        rows = _candidates(db, scope, heavy) if heavy else []
        for line in alone:
            matches = _matches(rows, line, signatures)
            if matches:
                asked = line
                break
    records: dict[str, list[_Row]] = {}
    followed: list[PastFailure] = []
    for similarity, row, failure, found in matches[:MAX_CHAINS]:
        session_id = str(row["session_id"])
        if session_id not in records:
            records[session_id] = _session_records(db, session_id)
        later = [r for r in records[session_id] if (r.turn, r.id) > (failure.turn, failure.id)]
        past = _chain(failure, later, found, str(row["workspace"]), signatures)
        past.session_id, past.title, past.project = session_id, row["title"], row["project"]
        past.similarity = similarity
        followed.append(past)
    _rank(followed, time.time())
    return FixResult(asked.text, followed[:limit], len(matches))


MAX_LINE_TRIES = 24


def error_lines(text: str) -> list[str]:
    """The lines of a multi-line text to try one by one, most likely the error first: those with
    an error word, then the others, each from the end (where output says what failed)."""
    lines = [line.strip() for line in text.splitlines() if any(c.isalpha() for c in line)]
    if len(lines) < 2:
        return []
    unique = list(dict.fromkeys(reversed(lines)))
    flagged = [line for line in unique if looks_like_error(line)]
    rest = [line for line in unique if not looks_like_error(line)]
    return (flagged + rest)[:MAX_LINE_TRIES]


def _matches(
    candidates: list[tuple[sqlite3.Row, _Row]], asked: Signature, signatures: _Signatures
) -> list[tuple[float, sqlite3.Row, _Row, Signature]]:
    """The candidates whose signature is close to `asked`, closest and newest first, one per
    session and signature."""
    matches: list[tuple[float, sqlite3.Row, _Row, Signature]] = []
    seen: set[tuple[str, str]] = set()
    for row, failure in candidates:
        if not asked.may_be_in(failure.output or failure.status or ""):
            continue
        found = signatures.of(failure)
        similarity = max(asked.similarity(found), CONTAINED * asked.coverage(found))
        session_id = str(row["session_id"])
        if similarity < asked_threshold(asked) or (session_id, found.key) in seen:
            continue
        seen.add((session_id, found.key))
        matches.append((similarity, row, failure, found))
    matches.sort(key=lambda match: (-match[0], -match[2].time))
    return matches


def asked_threshold(asked: Signature) -> float:
    """A one-word error (`Segmentation fault`) must match closely; a long one may differ more."""
    return 0.75 if len(asked.words) <= 2 else 0.6
