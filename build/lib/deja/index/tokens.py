"""Extra tokens that make code identifiers searchable by their parts.

SQLite's unicode61 tokenizer already splits `parse_config` and `src/app/main.py` at the
punctuation; it keeps `parseConfig` whole. The pieces of camel-case words go in a second column.
"""

from __future__ import annotations

import re

# Split on whitespace (C speed), then look closer only at tokens mixing cases: a regex scan of
# the whole text costs ten times more, and one pattern for whole camel-case words backtracks
# quadratically on long runs of letters.
_CAMEL_WORD = re.compile(r"[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9]*")
_HUMP = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_MAX_PARTS_INPUT = 200_000
_MAX_TOKEN = 200


def identifier_parts(text: str) -> str:
    """`parseConfig HTTPServer` → `parse Config HTTP Server` (each distinct word once; the
    tokenizer folds case)."""
    seen: set[str] = set()
    pieces: list[str] = []
    for token in set(text[:_MAX_PARTS_INPUT].split()):
        if len(token) > _MAX_TOKEN or token.islower() or token.isupper() or token.istitle():
            continue
        for word in _CAMEL_WORD.findall(token):
            if word not in seen:
                seen.add(word)
                pieces.extend(_HUMP.findall(word))
    return " ".join(pieces)
