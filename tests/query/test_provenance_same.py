"""The line matcher gives the same mapping as the one it replaced (`provenance_reference`, the
matcher before the speed work) on varied edit histories (`provenance_histories`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deja.query.provenance import forget_prepared
from deja.query.provenance_match import provenance
from tests.support import provenance_reference
from tests.support.provenance_histories import history


def same_mapping(seed: int) -> None:
    events, document = history(seed)
    forget_prepared()
    first, old = provenance(events, document), provenance_reference.provenance(events, document)
    again = provenance(events, document)  # the history's hunks kept from the first
    assert again.hunks == first.hunks
    for new in first, again:
        assert new.stacks == old.stacks
        assert new.columns == old.columns
        assert (new.vocabulary, new.pieces) == (old.vocabulary, old.pieces)


def test_the_histories_exercise_what_the_matcher_does() -> None:
    """Enough of them claim lines, moved or changed since, to make the comparison mean it."""
    changed = moved = claimed = 0
    for seed in range(150):
        events, document = history(seed)
        stacks = provenance_reference.provenance(events, document).stacks
        claims = [claim for stack in stacks for claim in stack]
        claimed += bool(claims)
        changed += any(claim.changed for claim in claims)
        moved += any(
            a.event == b.event and b.source < a.source
            for a, b in zip(
                [s[-1] for s in stacks if s], [s[-1] for s in stacks if s][1:], strict=False
            )
        )
    assert claimed > 120 and changed > 30 and moved > 15, (claimed, changed, moved)


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_the_matcher_gives_the_reference_mapping(seed: int) -> None:
    same_mapping(seed)


def test_the_bench_file_gives_the_reference_mapping() -> None:
    """5,000 lines, 50 writes and edits: the figures in bench/RESULTS.md are of this mapping."""
    from bench.provenance_bench import events_of
    from bench.provenance_bench import history as bench_history

    calls, document = bench_history()
    events = events_of(calls)
    new, old = provenance(events, document), provenance_reference.provenance(events, document)
    assert new.stacks == old.stacks and new.columns == old.columns
