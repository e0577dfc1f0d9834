"""The MCP tools: their definitions and their answers, thin over `History`. No MCP library here
(`server.py` wires these to the SDK), so the answers are tested without a server.

Every answer is framed by `deja.recall_frame.frame` and fits `MAX_ANSWER_BYTES` (an error is the
tool's own plain message, not recalled data, so it is not framed); the definitions are
what every request the agent sends carries, so they are kept short (a test measures them).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from deja import semantic
from deja.continue_store.workspace import relative_to_workspace
from deja.errors import DejaError
from deja.facts import event_facts, hit_facts
from deja.fix_blocks import files_blocks, files_nothing, fix_blocks, fix_nothing
from deja.index import IndexBusy
from deja.live_index import LiveIndex
from deja.one_line import cut
from deja.operations import (
    FileHistoryRequest,
    FixRequest,
    RestoreRequest,
    SearchRequest,
    from_json,
)
from deja.quantities import count
from deja.query import (
    FileEvent,
    History,
    Hit,
    Scope,
    SearchQuery,
    SearchResult,
    UnknownSession,
)
from deja.query.since import parse_since
from deja.recall_frame import frame, nothing_found
from deja.time_format import day, minute
from deja.wire import markdown_snippet

from .definitions import FIELDS
from .standing import standing
from .topic import topic_first

MAX_ANSWER_BYTES = 4096
# A restore transcript is the one long answer (it replaces re-reading a whole session), but it
# still must not flood the agent's context.
MAX_RESTORE_BYTES = 24_000
# The end of a long pasted output says what failed; the rest is not read.
MAX_ERROR_CHARS = 64_000
SNIPPET_CHARS = 300
REQUEST_CHARS = 200
DIFF_LINES = 10
BUILDING = (
    "Deja is still building its index (first pass); this answer comes from what is indexed "
    "so far. Ask again shortly for a complete answer."
)
BUSY = (
    "Another Deja process is indexing Continue's store; this answer comes from what is "
    "indexed so far. Ask again shortly for a complete answer."
)
DEEP_READING = (
    "Search by meaning is still reading past sessions in the background ({left} to read): a "
    "question worded unlike them may find more once it has. Ask again later for a complete "
    "answer."
)


class ToolError(DejaError):
    """Bad arguments: the answer says so, marked as an error for the client."""


def error_text(error: DejaError) -> str:
    """A user error as the tool's answer; an unknown session is the caller's own mistake."""
    return f"{error.message}." if isinstance(error, UnknownSession) else error.message


def _fit(blocks: list[list[str]], notes: list[str], empty: str, more: str) -> str:
    """As many whole blocks as fit the answer's size, then a line saying how many did not."""
    body: list[str] = []
    for shown, block in enumerate(blocks):
        candidate = frame("\n".join([*body, *block, more.format(n=len(blocks))]), notes)
        if len(candidate.encode("utf-8")) > MAX_ANSWER_BYTES:
            body.append(more.format(n=len(blocks) - shown))
            break
        body += block
    return frame("\n".join(body) if body else empty, notes)


def hit_block(number: int, hit: Hit) -> list[str]:
    """`project · date · title · session id`, then where it matched, then the matching text."""
    head = f"[{number}] {hit.project or '-'} · {day(hit.time)} · {hit.title or 'Untitled'}"
    facts = [f"turn {hit.turn}", *(fact.value for fact in hit_facts(hit))]
    if hit.file:
        facts.append(f"file {relative_to_workspace(hit.file, hit.workspace)}")
    snippet = markdown_snippet(cut(hit.snippet, SNIPPET_CHARS))
    return [f"{head} · {hit.session_id}", f"    {' · '.join(facts)}", f"    {snippet}"]


def event_block(number: int, event: FileEvent, now: str | None = None) -> list[str]:
    """When and in which session, the request behind the edit, where its lines stand `now`,
    and the lines it changed."""
    facts = " · ".join(fact.value for fact in event_facts(event))
    lines = [
        f"[{number}] {minute(event.time)} · {event.title or 'Untitled'} · {event.session_id}"
        f" · turn {event.turn} · {facts}"
    ]
    if event.request:
        lines.append(f"    asked: {cut(event.request, REQUEST_CHARS)}")
    if now:
        lines.append(f"    {now}")
    changed: list[str] = []
    for replaced, written in event.hunks:
        changed += [f"    - {line}" for line in (replaced or "").splitlines()]
        changed += [f"    + {line}" for line in written.splitlines()]
    if len(changed) > DIFF_LINES:
        changed = [*changed[:DIFF_LINES], f"    … {len(changed) - DIFF_LINES} more lines"]
    return lines + changed


def _request(name: str, arguments: dict[str, Any], **defaults: Any) -> Any:
    """The tool's typed request (`deja.operations`), read as its shipped schema says: only the
    fields it declares, each checked as every door checks it."""
    kind, fields = FIELDS[name]
    return from_json(kind, arguments, fields=fields, defaults=defaults, moment=parse_since)


class Recall:
    """Answers the tools for one MCP client, whose working directory is the workspace scope.

    The first index pass runs in the background (`start`), so the client's handshake is never
    kept waiting; answers meanwhile come from what is indexed and say so. After it, each answer
    first brings the index up to date (only changed sessions are read). Answers read through
    their own connection; passes write through another.
    """

    def __init__(self, cwd: str, home: Path | None = None, root: Path | None = None) -> None:
        self.cwd = cwd
        self.live = LiveIndex(home, root)

    def start(self) -> None:
        # Watched: `cn` rewrites the session after every message, and a compaction may follow
        # before any tool is called; each answer also brings the index up to date itself.
        self.live.start(watch=True)

    def _refresh(self) -> list[str]:
        """An incremental pass; when it fails, the answer comes from the index as it is."""
        try:
            report = self.live.refresh()
        except IndexBusy:
            return [BUSY]
        except Exception as error:  # a store or disk fault must not end the server
            return [f"Deja could not bring its index up to date ({error})"]
        # A missing or emptied store is not applied: the answer says so.
        return [report.refused.message] if report.refused else []

    def wait_indexed(self, timeout: float | None = None) -> bool:
        return self.live.wait_indexed(timeout)

    def close(self) -> None:
        # A pass still running is left to end with the process: the index survives a kill.
        self.live.close()

    def _history(self) -> tuple[History, list[str]]:
        """The reader, fresh when the first pass is done, with the notes the answer must carry."""
        self.live.wait_opened()
        reader = self.live.history
        if reader is None:
            error = self.live.open_error
            raise ToolError(f"Deja's index could not be opened: {error}")
        if not self.live.indexed:
            store = reader.root / "sessions"
            notes = [] if store.is_dir() else [f"there is no Continue session store at {store}"]
            return reader, [BUILDING, *notes]
        return reader, self._refresh()

    def answer(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """The framed text for a tool call, or the plain message of an error; and which."""
        handlers: dict[str, Callable[[dict[str, Any]], str]] = {
            "deja_search": self.search,
            "deja_file_history": self.file_history,
            "deja_restore": self.restore,
            "deja_fix": self.fix,
            "deja_files": self.files,
        }
        handler = handlers.get(name)
        if handler is None:
            return f"Unknown tool {name!r}.", True
        try:
            return handler(arguments), False
        except DejaError as error:
            return error_text(error), True

    def search(self, arguments: dict[str, Any]) -> str:
        request: SearchRequest = _request("deja_search", arguments, scope="workspace", limit=8)
        text, limit, since = request.query.strip(), request.limit, request.since
        if request.scope == "team":
            return self.team_search(text, limit, since)
        history, notes = self._history()
        choice = history.scope_for(all_workspaces=request.scope == "all", cwd=self.cwd)
        query = SearchQuery(text, scope=choice.scope, since=since, limit=limit, count_all=False)
        result = history.search(query, scope_notes=choice.notes)
        notes += [*result.notes, *_deep_reading(history, result)]
        where = "all workspaces" if choice.scope.is_all else f"workspace {choice.scope.label}"
        if since is not None:
            where += f" since {arguments['since'].strip()}"
        hint = "" if choice.scope.is_all else '; scope "all" searches every workspace'
        return _fit(
            [hit_block(n, hit) for n, hit in enumerate(result.hits, 1)],
            notes,
            nothing_found(f"no past session matches {text!r} in {where}{hint}."),
            "({n} more hits not shown: narrow the query)",
        )

    def team_search(self, text: str, limit: int, since: float | None) -> str:
        """The team database's hits (`deja team`), each naming the member who pushed it."""
        from deja.team.config import load_config, require_driver

        require_driver()
        from deja.team.search import team_search  # psycopg: only for the team scope

        query = SearchQuery(text, since=since, limit=limit, count_all=False)
        found, _ = team_search(load_config(), query)
        blocks = []
        for n, team_hit in enumerate(found, 1):
            block = hit_block(n, team_hit.hit)
            blocks.append([f"{block[0]} · by {team_hit.member}", *block[1:]])
        return _fit(
            blocks,
            [],
            nothing_found(f"no team session matches {text!r} in the projects you may read."),
            "({n} more hits not shown: narrow the query)",
        )

    def file_history(self, arguments: dict[str, Any]) -> str:
        request: FileHistoryRequest = _request("deja_file_history", arguments, limit=5)
        path, limit = request.path.strip(), request.limit
        history, notes = self._history()
        events = history.file_history(path, cwd=self.cwd)
        edits = [event for event in events if event.role == "edit"][:limit]
        reads = sum(1 for event in events if event.role != "edit")
        seen = f" (it was read or attached {'once' if reads == 1 else f'{reads} times'})"
        seen = seen if reads else ""
        now = standing(history, events)
        return _fit(
            [event_block(n, event, now.get(id(event))) for n, event in enumerate(edits, 1)],
            notes,
            nothing_found(f"no past Continue session edited or wrote {path}{seen}."),
            "({n} more edits not shown: lower the limit)",
        )

    def fix(self, arguments: dict[str, Any]) -> str:
        """Every workspace: an error is seldom one project's own."""
        request: FixRequest = _request("deja_fix", arguments)
        error = request.error.strip()[-MAX_ERROR_CHARS:]
        history, notes = self._history()
        result = history.fix(error, Scope(), limit=8)
        return _fit(
            fix_blocks(result),
            notes,
            nothing_found(fix_nothing(result, "any workspace")),
            "({n} more past failures not shown)",
        )

    def files(self, arguments: dict[str, Any]) -> str:
        topic = _request("deja_files", arguments).topic.strip()
        history, notes = self._history()
        choice = history.scope_for(cwd=self.cwd)
        result = history.files(topic, choice.scope, limit=15)
        return _fit(
            files_blocks(result),
            [*notes, *choice.notes],
            nothing_found(files_nothing(result, choice.scope.label)),
            "({n} more files not shown)",
        )

    def restore(self, arguments: dict[str, Any]) -> str:
        """`session` is an id (or 8+ characters of one) or "last" (the default)."""
        request: RestoreRequest = _request("deja_restore", arguments)
        session = (request.session or "").strip() or "last"
        topic = (request.topic or "").strip() or None
        history, notes = self._history()
        if session == "last":
            result = history.restore("last", topic=topic, cwd=self.cwd)
        else:
            result = history.restore(session=session, topic=topic, cwd=self.cwd)
        notes += result.notes
        if result.text:
            # The cut keeps the start: a topic restore starts with the turns about it.
            text = topic_first(result)
            return frame(_cut_bytes(text, MAX_RESTORE_BYTES), notes)
        return frame(nothing_found(result.message or "no session to restore."), notes)


def _deep_reading(history: History, result: SearchResult) -> list[str]:
    """While the deep model has records to read, an answer meaning may have given (nothing
    found by words, or hits by meaning only) says so, as answers during the first pass do."""
    if any(not hit.meaning_only for hit in result.hits) or not semantic.deep_enabled():
        return []
    left = history.deep_pending()
    if left == 0:
        return []
    return [DEEP_READING.format(left="all records" if left is None else count(left, "record"))]


def _cut_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    kept = data[: limit - 200].decode("utf-8", "ignore")
    return kept + "\n… (cut here to spare your context; `deja restore` in a terminal has the rest)"
