"""Extra tokens that make code identifiers searchable by their parts.

SQLite's unicode61 tokenizer already splits `parse_config` and `src/app/main.py` at the
punctuation; it keeps `parseConfig` whole. The pieces of camel-case words go in a second column.
"""

from __future__ import annotations

import re

_CAMEL_WORD = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
_HUMP = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_MAX_PARTS_INPUT = 200_000


def identifier_parts(text: str) -> str:
    """`parseConfig HTTPServer` → `parse config http server` (each distinct word once)."""
    seen: set[str] = set()
    pieces: list[str] = []
    for word in _CAMEL_WORD.findall(text[:_MAX_PARTS_INPUT]):
        if word in seen:
            continue
        seen.add(word)
        pieces.extend(_HUMP.findall(word))
    return " ".join(pieces)
