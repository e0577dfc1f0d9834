"""A turn as the preview and the session screen show it: markdown blocks made by the renderer
every door shares (`deja.render_markdown`), reasoning folded, a command as `$ command → exit N`
with its output, and "kept by Deja" on a turn Continue no longer has. Pure: no Textual."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deja import render_markdown as md
from deja.continue_store.tool_calls import call_outcome
from deja.one_line import cut
from deja.query import TurnRecord
from deja.query.session_page import PageRecord, PageTurn
from deja.time_format import iso_time

KEPT_BY_DEJA = "kept by Deja: compacted away, no longer in Continue's store"


@dataclass(frozen=True, slots=True)
class Block:
    """Markdown to show; `folded` under `title` (reasoning) until opened."""

    markdown: str
    folded: bool = False
    title: str = ""


def command_markdown(record: TurnRecord) -> str:
    """`$ command → exit N` (or how the call ended), then its output."""
    if record.exit_code is not None:
        ended = f" → exit {record.exit_code}"
    else:
        outcome = call_outcome(record.status)
        ended = f" → {outcome}" if outcome else ""
    lines = [f"{md.code('$ ' + (record.args or ''))}{ended}"]
    if record.output:
        lines += ["", md.fence(record.output, "text")]
    return "\n".join(lines)


def _cut_note(item: PageRecord) -> str:
    record = item.record
    notes = []
    if item.text_chars > len(record.text):
        notes.append(f"text cut at {len(record.text):,} of {item.text_chars:,} characters")
    if record.output is not None and item.output_chars > len(record.output):
        notes.append(f"output cut at {len(record.output):,} of {item.output_chars:,} characters")
    if item.diff_lines > sum(
        len(w.splitlines()) + len((r or "").splitlines()) for r, w in record.hunks
    ):
        notes.append(f"+{item.added} −{item.removed} in all")
    return f"_({'; '.join(notes)}: `deja show` has it whole)_" if notes else ""


def record_block(item: PageRecord) -> Block:
    record = item.record
    if record.role == "reasoning":
        return Block(md.fence(record.text, "text"), folded=True, title="Reasoning")
    text = command_markdown(record) if record.role == "command" else "\n".join(md.record(record))
    note = _cut_note(item)
    return Block(f"{text}\n\n{note}" if note else text)


def turn_heading(turn: PageTurn) -> str:
    marks = [f"Turn {turn.turn}", iso_time(turn.time)]
    if turn.inherited:
        marks.append("from the session it was forked from")
    if turn.compacted:
        marks.append(KEPT_BY_DEJA)
    return "### " + " · ".join(marks)


def turn_blocks(turn: PageTurn) -> list[Block]:
    return [Block(turn_heading(turn)), *(record_block(item) for item in turn.records)]


PREVIEW_LINES = 40  # of a message, an output or a diff: the preview is a glance, Enter has it all


def _lines(text: str, most: int = PREVIEW_LINES) -> str:
    lines = text.splitlines()
    return text if len(lines) <= most else "\n".join(lines[:most])


def glance(item: PageRecord) -> PageRecord:
    """The record cut to what a preview pane shows (its cuts said as the page's are)."""
    record = item.record
    record.text = _lines(record.text)
    record.output = None if record.output is None else _lines(record.output)
    kept: list[tuple[str | None, str]] = []
    room = PREVIEW_LINES
    for replaced, written in record.hunks:
        if room <= 0:
            break
        old = _lines(replaced, room) if replaced is not None else None
        room -= len((old or "").splitlines())
        kept.append((old, _lines(written, max(room, 0))))
        room -= len(kept[-1][1].splitlines())
    record.hunks = kept
    return item


def preview_markdown(turns: Sequence[PageTurn]) -> str:
    """The turns as one markdown text, each record cut to a glance and reasoning folded to its
    first line (the session screen has them whole)."""
    parts: list[str] = []
    for turn in turns:
        turn.records = [glance(item) for item in turn.records]
        for block in turn_blocks(turn):
            if block.folded:
                lines = block.markdown.splitlines()[1:-1]
                first = md.escape(cut(lines[0], 100)) if lines else ""
                more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
                parts.append(f"▸ _{block.title}: {first}{more}_")
            else:
                parts.append(block.markdown)
    return "\n\n".join(parts)
