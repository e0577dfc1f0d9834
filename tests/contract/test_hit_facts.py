"""A hit's and a file event's facts are stated once (`deja.facts`): the terminal, the sidecar's
markdown and MCP show every one of them, in the same words, for the same hit or event."""

from __future__ import annotations

import io

import pytest

from deja import render_markdown
from deja.cli import render
from deja.facts import event_facts, hit_facts
from deja.mcp.tools import event_block, hit_block
from deja.query import HIGHLIGHT_END, HIGHLIGHT_START, FileEvent, Hit

NOW = 1_800_000_000.0


def a_hit(**changes: object) -> Hit:
    hit = Hit(
        session_id="5e55a1d0-0000-4000-8000-000000000001",
        title="Fix the flaky queue",
        workspace="/w/shop",
        project="shop",
        turn=4,
        time=NOW - 3 * 86_400,
        role="command",
        snippet=f"pytest {HIGHLIGHT_START}queue{HIGHLIGHT_END} -x",
        file="/w/shop/queue.py",
        exit_code=2,
        status="errored",
        compacted=True,
        deleted=True,
        score=1.0,
        record_id=7,
        meaning_only=True,
    )
    return hit._replace(**changes)


def doors(hit: Hit) -> dict[str, str]:
    terminal = "\n".join(render.hit_lines(hit, render.Style(io.StringIO()), NOW))
    markdown = render_markdown.search("queue", "all", [hit], [], NOW)
    return {"cli": terminal, "markdown": markdown, "mcp": "\n".join(hit_block(1, hit))}


def test_every_door_shows_status_and_deleted() -> None:
    """The markdown dropped `status` and MCP dropped `deleted` (and showed `status` only when
    there was no exit code)."""
    for door, text in doors(a_hit()).items():
        for words in ("errored", "deleted", "exit 2", "compacted", "by meaning"):
            assert words in text, f"{door} leaves out {words!r}:\n{text}"


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"exit_code": None, "status": "canceled", "deleted": False, "meaning_only": False},
        {"exit_code": 0, "status": "done", "compacted": False, "role": "assistant"},
        {"role": "edit", "exit_code": None, "status": "refused", "file": None},
    ],
)
def test_the_three_doors_show_the_same_facts(changes: dict[str, object]) -> None:
    hit = a_hit(**changes)
    facts = hit_facts(hit)
    assert facts[0] == ("role", hit.role)
    for door, text in doors(hit).items():
        for fact in facts:
            assert fact.value in text, f"{door} leaves out {fact}:\n{text}"
        for word in ("errored", "canceled", "refused", "deleted", "compacted", "by meaning"):
            stated = any(word in fact.value for fact in facts)
            assert (word in text) == stated or word in hit.title, (door, word, text)
        assert "turn 4" in text or "#4" in text
        assert hit.project in text and hit.session_id[:8] in text


def an_event(**changes: object) -> FileEvent:
    event = FileEvent(
        session_id="5e55a1d0-0000-4000-8000-000000000002",
        title="Retry the queue",
        workspace="/w/shop",
        turn=2,
        time=NOW - 3600,
        role="edit",
        tool="edit_existing_file",
        status="refused",
        path="/w/shop/queue.py",
        compacted=True,
        request="make it retry",
        hunks=[("old", "new")],
    )
    for name, value in changes.items():
        setattr(event, name, value)
    return event


@pytest.mark.parametrize("status", ["refused", "errored", "done", None])
def test_every_door_shows_an_events_facts(status: str | None) -> None:
    event = an_event(status=status)
    facts = event_facts(event)
    texts = {
        "cli": "\n".join(render.event_lines(event, render.Style(io.StringIO()), NOW)),
        "hover": render_markdown.edit_summary(event, now=NOW),
        "file history": render_markdown.file_history(event.path, [event], NOW),
        "mcp": "\n".join(event_block(1, event)),
    }
    for door, text in texts.items():
        for fact in facts:
            if fact.label == "what" and door == "hover":
                continue  # a hover sits on the edited lines: it names no verb
            assert fact.value.casefold() in text.casefold(), f"{door} leaves out {fact}:\n{text}"
        outcome = status not in (None, "done")
        assert (str(status) in text) == outcome, f"{door}: {text}"
