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
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f]"
)
# The control characters `_ESCAPE` removes, as UTF-8 bytes: no other character's UTF-8 holds
# a byte below 0x80, so looking for them in the encoded text finds exactly them.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def clean_text(text: str) -> str:
    """Strings from disk may hold escapes, NULs or lone surrogates; none belongs in the index."""
    # Every text read is cleaned, most of them clean already: encoding (which lone surrogates
    # fail) and deleting the control bytes run in C a byte at a time, several times faster
    # than a regex looking for a character class at every position.
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return _clean_with_surrogates(text)
    if len(encoded.translate(None, _CONTROL_BYTES)) == len(encoded):
        return text
    return _ESCAPE.sub("", text.replace("\r\n", "\n"))


def _clean_with_surrogates(text: str) -> str:
    text = _ESCAPE.sub("", text.replace("\r\n", "\n"))
    return text.encode("utf-8", "replace").decode("utf-8")
