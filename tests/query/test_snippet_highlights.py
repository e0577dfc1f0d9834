"""`wire.snippet_highlights`: a snippet's match markers as offsets into its plain text."""

from __future__ import annotations

from deja.query import HIGHLIGHT_END, HIGHLIGHT_START
from deja.wire import snippet_highlights


def test_snippet_highlights_of_marks_cut_and_unbalanced() -> None:
    s, e = HIGHLIGHT_START, HIGHLIGHT_END
    assert snippet_highlights(f"a {s}bé{e} c {s}dd{e}") == ("a bé c dd", [[2, 4], [7, 9]])
    assert snippet_highlights(f"…x {s}cut") == ("…x cut", [[3, 6]])  # the window's end cut it
    assert snippet_highlights(f"{e}stray {s}{e}empty") == ("stray empty", [])
    assert snippet_highlights("plain") == ("plain", [])
