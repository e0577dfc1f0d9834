"""`clean_text`'s fast test for control characters (on the UTF-8 bytes) decides as the pattern
does: the text cleaned is the same as the pattern alone would make it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deja.continue_store.content import _CONTROL, _ESCAPE, clean_text

PIECES = ["a", "é", "\x1b", "[", "0", "m", "]", "\r", "\n", "\t", "\x00", "\x07", "\x0b", "\x7f"]
PIECES += ["\ud800", "\udfff", "😀", "\\", "\u0085", " ", "\x1b[31m", "\x1b]0;t\x07"]


def by_pattern(text: str) -> str:
    if _CONTROL.search(text):
        text = _ESCAPE.sub("", text.replace("\r\n", "\n"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_clean_text_is_what_the_pattern_makes(text: str) -> None:
    assert clean_text(text) == by_pattern(text)


def test_escapes_and_surrogates_are_cleaned() -> None:
    assert clean_text("\x1b[31mred\x1b[0m\r\nok") == "red\nok"
    assert clean_text("lone \ud800 half") == "lone ? half"
    assert clean_text("plain ünïcode") == "plain ünïcode"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain\ttext\n", "plain\ttext\n"),
        ("a\r\nb\rc", "a\nbc"),
        ("nul\x00 del\x7f unit\x1f", "nul del unit"),
        ("title\x1b]0;x\x07 é € 😀", "title é € 😀"),
        ("lone \ud800 surrogate \x1b[1m", "lone ? surrogate "),
    ],
)
def test_cleans_escapes_controls_and_surrogates(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_a_clean_text_is_returned_as_it_is() -> None:
    text = "naïve café ✓ " * 1000
    assert clean_text(text) is text
