"""The search's query and snippets are read without `re` (a search's start-up): each hand-written
reader gives what the pattern it replaces gives, on every code point and on random text."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from deja.query import HIGHLIGHT_END, HIGHLIGHT_START, marked_pieces
from deja.query.query_syntax import _scan, _tokens, parse_query

TOKEN = re.compile(r"[^\W_]+")
QUERY_PART = re.compile(r'(-?)"([^"]*)"?|(\S+)')
MARKS = re.compile(f"([{HIGHLIGHT_START}{HIGHLIGHT_END}])")

# What a query is made of: quotes, dashes, stars, spaces of several kinds, letters of several
# scripts, digits (some not ASCII), underscores and punctuation.
QUERY_CHARS = st.sampled_from(list('""--* \t\n\u3000\u00a0aZé_9٣ßİ.:/ﬁ'))
queries = st.text(QUERY_CHARS, max_size=30) | st.text(max_size=30)


def test_a_query_character_is_a_word_character_or_a_space_as_re_says() -> None:
    """`str.isalnum` is `[^\\W_]` and `str.isspace` is `\\s`, on every code point."""
    word = re.compile(r"[^\W_]")
    space = re.compile(r"\s")
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        assert char.isalnum() == bool(word.match(char)), hex(point)
        assert char.isspace() == bool(space.match(char)), hex(point)


@settings(max_examples=600, deadline=None)
@given(queries)
def test_the_query_is_read_as_the_patterns_read_it(text: str) -> None:
    assert _tokens(text) == TOKEN.findall(text)
    expected = [
        (m.group(1) or "", m.group(2), "") if m.group(2) is not None else ("", None, m.group(3))
        for m in QUERY_PART.finditer(text)
    ]
    assert list(_scan(text)) == expected


def test_phrases_dashes_and_unclosed_quotes() -> None:
    assert list(_scan('-"a b" c"d e" "open')) == [
        ("-", "a b", ""),
        ("", None, 'c"d'),
        ("", None, 'e"'),
        ("", "open", ""),
    ]
    assert parse_query('retry "time out" -flaky').excluded[0].tokens == ("flaky",)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "bc", HIGHLIGHT_START, HIGHLIGHT_END, "…"])).map("".join))
def test_a_snippet_splits_at_its_marks_as_re_split_does(snippet: str) -> None:
    assert marked_pieces(snippet) == MARKS.split(snippet)
