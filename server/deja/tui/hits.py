"""The hit list: hits grouped by session, in rank order, with the facts every door shows of a
hit (its role, `→ exit N`, how a call ended, compacted, forked, by meaning). Pure: no Textual,
no query; Rich text only, so it renders in any Rich console as well as on the screen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.text import Text

from deja.continue_store.tool_calls import TOOL_ROLES, call_outcome
from deja.one_line import one_line
from deja.query import Hit, SessionSummary, fork_line
from deja.time_format import ago
from deja.wire import snippet_highlights

_FLAT = str.maketrans("\n\r\t", "   ")


@dataclass(slots=True)
class Group:
    """One session and its hits, best first; a session listed without a query has none."""

    session_id: str
    title: str
    project: str
    workspace: str
    time: float
    summary: SessionSummary | None = None
    hits: list[Hit] = field(default_factory=list)


def group_hits(hits: Sequence[Hit], summaries: Sequence[SessionSummary] = ()) -> list[Group]:
    """Hits grouped by session; the groups in the order of their best hit."""
    by_id = {summary.id: summary for summary in summaries}
    groups: dict[str, Group] = {}
    for hit in hits:
        group = groups.get(hit.session_id)
        if group is None:
            group = Group(hit.session_id, hit.title, hit.project, hit.workspace, hit.time)
            group.summary = by_id.get(hit.session_id)
            groups[hit.session_id] = group
        group.hits.append(hit)
    return list(groups.values())


def session_groups(summaries: Sequence[SessionSummary]) -> list[Group]:
    """Recent sessions, newest first: the screen before a query is typed."""
    return [
        Group(s.id, s.title, s.project, s.workspace, s.last_active, summary=s) for s in summaries
    ]


def hit_badges(hit: Hit) -> list[tuple[str, str]]:
    """(words, style) of each fact beyond the role, in the order the CLI prints them."""
    badges: list[tuple[str, str]] = []
    if hit.exit_code is not None:
        badges.append((f"→ exit {hit.exit_code}", "bold red" if hit.exit_code else "green"))
    elif hit.role in TOOL_ROLES:
        ended = call_outcome(hit.status)
        if ended:
            badges.append((ended, "bold red" if ended in ("errored", "refused") else "yellow"))
    if hit.compacted:
        badges.append(("compacted", "cyan"))
    if hit.deleted:
        badges.append(("deleted", "dim"))
    if hit.meaning_only:
        badges.append(("by meaning", "magenta"))
    return badges


def group_line(group: Group, now: float) -> Text:
    """`Title · project · 3 days ago` and `forked` when the session is a fork."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(one_line(group.title) or "Untitled session", style="bold")
    line.append(f" {group.session_id[:8]}", style="dim")
    line.append(f" · {group.project or '-'} · {ago(group.time, now)}")
    summary = group.summary
    if summary is not None and fork_line(summary):
        line.append(" · ")
        line.append("forked", style="magenta")
    if summary is not None and summary.lost_context:
        line.append(" · ")
        line.append("compacted", style="cyan")
    return line


def hit_line(hit: Hit) -> Text:
    """`  #3 command → exit 1  snippet with the matched words marked`."""
    line = Text("  ", no_wrap=True, overflow="ellipsis")
    line.append(f"#{hit.turn} ", style="dim")
    line.append(hit.role, style="italic")
    for words, style in hit_badges(hit):
        line.append(" ")
        line.append(words, style=style)
    text, highlights = snippet_highlights(hit.snippet)
    # Line breaks as spaces, one for one, so the highlights' offsets still hold.
    flat = Text(text.translate(_FLAT), style="dim" if hit.role == "reasoning" else "")
    for start, end in highlights:
        flat.stylize("bold reverse", start, end)
    line.append("  ")
    line.append_text(flat)
    if hit.file:
        line.append(f"  {hit.file}", style="dim")
    return line
