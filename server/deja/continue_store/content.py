"""Message content as Continue stores it: a string or a list of parts."""

from __future__ import annotations

import re
from typing import Any

IMAGE_MARKER = "[image]"

# Caps on text that enters a record: tool outputs and written files can be tens of MB; the index
# keeps the head and the tail (where errors and results usually are) and says what it cut.
MAX_MESSAGE_CHARS = 200_000
MAX_OUTPUT_CHARS = 16_000
MAX_ARGS_CHARS = 8_000


def content_text(content: Any) -> str:
    """Text parts joined; image parts as `[image]` so no base64 ever enters the index."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif kind in ("imageUrl", "image_url", "image"):
                pieces.append(IMAGE_MARKER)
    return "\n".join(pieces)


def clip(text: str, limit: int) -> str:
    """Keep head and tail of an over-long text, marking the cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[… {cut} characters not indexed …]\n{text[-half:]}"


# Terminal escapes (colours in captured command output, or a hostile title that clears the
# screen) and other control characters: never indexed, never printed back.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f]"
)


# The same characters as bytes: in UTF-8 a byte below 0x80 is always its ASCII character, so
# deleting these from the encoded text tells whether it has one, many times faster than the
# pattern over a long tool output.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def clean_text(text: str) -> str:
    """Strings from disk may hold escapes, NULs or lone surrogates; none belongs in the index."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        if _CONTROL.search(text):
            text = _ESCAPE.sub("", text.replace("\r\n", "\n"))
        return text.encode("utf-8", "replace").decode("utf-8")
    if len(raw.translate(None, _CONTROL_BYTES)) == len(raw):
        return text
    return _ESCAPE.sub("", text.replace("\r\n", "\n"))
