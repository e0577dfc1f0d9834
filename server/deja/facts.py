"""A hit's and a file event's facts, stated once: which exist, in what order and in what words.
Every door that shows a hit or an event in words (the CLI, the sidecar's markdown, MCP) lists
these and only styles them (colour, bold, separators), so the doors cannot disagree on what a
hit is: a door that dropped `status` or `deleted` would show fewer facts than this list.

A hit's place — title, session, project, turn, time, file — and its snippet are laid out by
each door; the facts are what it was and how it ended. Beside `wire.py` (the JSON forms) and as
pure: no I/O, nothing a door owns."""

from __future__ import annotations

from deja.plain_record import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:  # typing only: `deja search` loads no query types through here
    from deja.query import FileEvent, Hit

MEANING_ONLY = "by meaning (no word matched)"
COMPACTED = "compacted"
DELETED = "deleted"


class Fact(NamedTuple):
    """`label` names the fact for styling (`exit`, `status`, …); `value` is its words."""

    label: str
    value: str


def hit_facts(hit: Hit) -> list[Fact]:
    """What a hit is and how it ended, in order: role, exit code, status (when not simply
    done), compacted, deleted, found by meaning only. Only those that hold."""
    facts = [Fact("role", hit.role)]
    if hit.exit_code is not None:
        facts.append(Fact("exit", f"exit {hit.exit_code}"))
    if hit.status not in (None, "done"):
        facts.append(Fact("status", str(hit.status)))
    if hit.compacted:
        facts.append(Fact("compacted", COMPACTED))
    if hit.deleted:
        facts.append(Fact("deleted", DELETED))
    if hit.meaning_only:
        facts.append(Fact("meaning", MEANING_ONLY))
    return facts


def event_facts(event: FileEvent) -> list[Fact]:
    """What a file event did and how it ended: `edited` (or `edit` for a call that did not
    run), `read`, `attached`; the call's outcome when it did not simply run (`errored`,
    `refused`, …, the words of `deja show`); compacted."""
    # The reader's tools module only here: `deja search` shows hits, not events.
    from deja.continue_store.tool_calls import TOOL_ROLES, call_outcome, edit_verb

    outcome = call_outcome(event.status) if event.role in TOOL_ROLES else None
    what = edit_verb(event.tool, ran=not outcome) if event.role == "edit" else event.role
    facts = [Fact("what", what)]
    if outcome:
        facts.append(Fact("status", outcome))
    if event.compacted:
        facts.append(Fact("compacted", COMPACTED))
    return facts
