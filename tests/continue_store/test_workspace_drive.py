"""A Windows drive at a path's start is told without `re` (a search's start-up): as the pattern
`^/?([A-Za-z]):(?:[/\\]|$)` tells it, on random paths."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from deja.continue_store.workspace import _drive_end, is_windows_path, normalize_workspace

DRIVE = re.compile(r"^/?([A-Za-z]):(?:[/\\]|$)")
paths = st.text(st.sampled_from(list("/\\:cZé1 \n.")), max_size=8) | st.text(max_size=8)


@settings(max_examples=800, deadline=None)
@given(paths)
def test_a_drive_is_found_where_the_pattern_finds_it(path: str) -> None:
    match = DRIVE.match(path)
    assert _drive_end(path) == (match.end() if match else -1)
    assert is_windows_path(path) == (bool(match) or path.startswith("\\\\"))


def test_drives_as_the_editor_and_the_cli_write_them() -> None:
    assert normalize_workspace("C:\\Users\\Ann\\") == "c:/Users/Ann"
    assert normalize_workspace("/C:/x") == "c:/x"
    assert normalize_workspace("file:///c%3A/") == "c:/"
    assert normalize_workspace("c:") == "c:/"
    assert not is_windows_path("/home/ann") and not is_windows_path("é:/x")
