"""`clean_text`: what it removes and what it keeps, checked against its rule stated as regexes
(every control character but tab and newline goes, with the terminal escape it begins; lone
surrogates become U+FFFD)."""

from __future__ import annotations

import random
import re

import pytest

from deja.continue_store.content import clean_text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f]"
)


def by_the_rule(text: str) -> str:
    if _CONTROL.search(text):
        text = _ESCAPE.sub("", text.replace("\r\n", "\n"))
    return text.encode("utf-8", "replace").decode("utf-8")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain\ttext\n", "plain\ttext\n"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("a\r\nb\rc", "a\nbc"),
        ("nul\x00 del\x7f unit\x1f", "nul del unit"),
        ("title\x1b]0;x\x07 é € 😀", "title é € 😀"),
        ("lone \ud800 surrogate \x1b[1m", "lone ? surrogate "),
    ],
)
def test_cleans_escapes_controls_and_surrogates(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_agrees_with_the_rule_on_mixed_text() -> None:
    alphabet = ["a", " ", "\n", "\t", "\r", "\r\n", "\x1b[31m", "\x1b]0;t\x07", "\x00", "\x7f"]
    alphabet += ["\x80", "é", "€", "\ud800", "\udfff", "😀", "\x1f", "[", "\\", "\x1b", "\x85"]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert clean_text(text) == by_the_rule(text), repr(text)


def test_a_clean_text_is_returned_as_it_is() -> None:
    text = "naïve café ✓ " * 1000
    assert clean_text(text) is text
