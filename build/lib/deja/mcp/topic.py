"""A topic restore for an agent: the turns about the topic first, the most relevant first, then
each session's other turns in order.

The agent's answer is cut to fit its context, keeping the start; in `History.restore`'s
transcript the turns about the topic stand wherever they happened, so a late one was cut away.
Only whole blocks of the transcript (format 1) move, each one user turn (or compaction boundary)
with its replies; the blocks are found by their stamps. When the text does not read as expected
(a pasted transcript inside a turn, say), it is left as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deja.query.restore import RestoreResult


@dataclass(frozen=True, slots=True)
class Block:
    turn: int  # the first history item it shows
    text: str


def _split(section: str, id8: str) -> tuple[str, list[Block]] | None:
    """A session's header and its blocks, each starting after a blank line with its stamp."""
    stamp = re.compile(
        rf"\n\n(?=\[Session:{re.escape(id8)} \S+ #(\d+)\] |--- compaction (?:at|before) #(\d+))"
    )
    text = section.rstrip("\n")
    found = list(stamp.finditer(text))
    header = text[: found[0].start()] if found else text
    blocks = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        blocks.append(Block(int(match.group(1) or match.group(2)), text[match.end() : end]))
    turns = [block.turn for block in blocks]
    # A boundary and the turn after it may share a number; a stamp out of order is not ours.
    return (header, blocks) if turns == sorted(turns) else None


def topic_first(result: RestoreResult) -> str:
    """The transcript with the topic's turns moved to the front, ranked by the scores the
    restore's own search gave them."""
    text = result.text
    topic = result.topic
    if not text or not topic or not any(r.full_turns for r in result.restored):
        return text
    closing_at = text.rfind("\n\n## Restored ")
    if closing_at < 0:
        return text
    head_end = text.find("\n\n## Session ")
    if not 0 <= head_end < closing_at:
        return text
    head, body, closing = (
        text[:head_end],
        text[head_end + 2 : closing_at + 1],
        text[closing_at + 2 :],
    )
    # Sections are in the order of `restored`, each opening with its session's header.
    starts: list[int] = []
    position = 0
    for restored in result.restored:
        position = body.find(f"## Session {restored.session.id} · ", position)
        if position < 0 or (starts and position <= starts[-1]):
            return text
        starts.append(position)
    ranked: list[tuple[float, int, Block]] = []
    sections: list[str] = []
    for index, restored in enumerate(result.restored):
        end = starts[index + 1] if index + 1 < len(starts) else len(body)
        split = _split(body[starts[index] : end], restored.session.id[:8])
        if split is None:
            return text
        header, blocks = split
        scores = restored.turn_scores
        kept = [header]
        for number, block in enumerate(blocks):
            following = blocks[number + 1].turn if number + 1 < len(blocks) else None
            inside = [
                score
                for turn, score in scores.items()
                if block.turn <= turn and (following is None or turn < following)
            ]
            if inside:
                ranked.append((max(inside), -len(ranked), block))
            else:
                kept.append(block.text)
        sections.append("\n\n".join(kept))
    if not ranked:
        return text
    ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
    lead = f'## Turns about "{topic}", most relevant first; then each session\'s other turns'
    moved = [block.text for _, _, block in ranked]
    return "\n\n".join([head, lead, *moved, *sections, closing])
