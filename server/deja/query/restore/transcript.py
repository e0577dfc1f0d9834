"""The transcript of the sessions picked: each one's section (from the cache when its key still
holds), a topic's best turns in full, and the closing block."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from deja.quantities import count as plural

from ..search import SearchQuery, search
from ..sessions import session_ids
from .cache import SectionCache, cache_key
from .closing import RestoredSession, closing_block
from .git import session_commits
from .load import SessionState, load_entries, load_outputs
from .section import FORMAT_LINE, Inherited, build_section

TOPIC_TURNS = 20


@dataclass(frozen=True, slots=True)
class Pick:
    """A session to restore: its number in the listing (None: picked by id) and, for the current
    session, the turn its last compaction starts at (only what came before is restored)."""

    number: int | None
    state: SessionState
    until: int | None


def topic_turns(
    db: sqlite3.Connection, topic: str, picks: Sequence[Pick]
) -> dict[str, dict[int, float]]:
    """The TOPIC_TURNS turns the index ranks most relevant to `topic` across the picks, each
    session's with their best scores."""
    best: dict[tuple[str, int], float] = {}
    for pick in picks:
        session_id = pick.state.session.id
        hits = search(
            db, SearchQuery(topic, session=session_id, limit=TOPIC_TURNS * 5, count_all=False)
        ).hits
        for hit in hits:
            if pick.until is not None and hit.turn >= pick.until:
                continue
            key = (session_id, hit.turn)
            best[key] = max(best.get(key, hit.score), hit.score)
    ranked = sorted(best.items(), key=lambda item: -item[1])[:TOPIC_TURNS]
    turns: dict[str, dict[int, float]] = {}
    for (session_id, turn), score in ranked:
        turns.setdefault(session_id, {})[turn] = score
    return turns


def _inherited(db: sqlite3.Connection, pick: Pick, carries: bool) -> Inherited | None:
    parent_turn = pick.state.parent_turn
    if parent_turn is None:
        return None
    entries = load_entries(db, pick.state.session.id, pick.until, inherited=True) if carries else []
    return Inherited(entries, parent_turn)


def transcript(
    db: sqlite3.Connection, cache: SectionCache, picks: Sequence[Pick], topic: str | None
) -> tuple[str, list[RestoredSession]]:
    """The text (format `FORMAT_LINE`) and what it restored."""
    # Oldest first: the transcript reads in the order things happened.
    picks = sorted(picks, key=lambda p: (p.state.session.started, p.state.session.id))
    full = topic_turns(db, topic, picks) if topic else {}
    sections: list[str] = []
    restored: list[RestoredSession] = []
    wrote = False
    picked = {pick.state.session.id for pick in picks}
    for pick in picks:
        session_id = pick.state.session.id
        # A fork's copy of its parent's turns is shown once: under the parent when it is here.
        state = pick.state
        carries = state.parent_turn is not None and state.session.forked_from not in picked
        key = cache_key(pick.state, pick.until, carries)
        scores = full.get(session_id, {})
        turns = sorted(scores)
        hit = None if topic else cache.get(session_id, key)
        if hit is not None:
            text, users = hit
        else:
            entries = load_entries(db, session_id, pick.until)
            text, users = build_section(
                pick.state.session,
                entries,
                base_turn=pick.state.base_turn,
                until=pick.until,
                full=turns,
                outputs=load_outputs(db, session_id, turns),
                inherited=_inherited(db, pick, carries),
            )
            if not topic:  # a topic restore never modifies the cache
                cache.put(session_id, key, text, users)
                wrote = True
        sections.append(text)
        restored.append(
            RestoredSession(
                pick.state.session, pick.number, pick.until, users, scores, hit is not None
            )
        )
    if wrote:
        cache.prune(session_ids(db))
    head = [FORMAT_LINE]
    if topic:
        count = sum(len(scores) for scores in full.values())
        head.append(
            f'# topic: "{topic}" · {plural(count, "turn")} shown in full'
            if count
            else f'# topic: "{topic}" · no turn matched; previews only'
        )
    commits = session_commits(db, [r.session for r in restored])
    text = "\n".join(head) + "\n\n" + "\n".join(sections) + "\n" + closing_block(restored, commits)
    return text, restored
