"""Extra tokens that make code identifiers searchable by their parts.

SQLite's unicode61 tokenizer already splits `parse_config` and `src/app/main.py` at the
punctuation; it keeps `parseConfig` whole. The pieces of camel-case words go in a second column.
"""

from __future__ import annotations

import functools

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    import re

# Split on whitespace (C speed), then look closer only at tokens mixing cases: a regex scan of
# the whole text costs ten times more, and one pattern for whole camel-case words backtracks
# quadratically on long runs of letters.
_CAMEL_WORD = r"[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9]*"
_HUMP = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+"
_MAX_PARTS_INPUT = 200_000
_MAX_TOKEN = 200
# Tokens repeat across a pass's records: ones known to have no parts are dropped by one set
# difference (C speed), and a mixed-case token's words and their humps are found once. Bounded:
# cleared when full (a pass spends less in the splitter than without it).
_CACHE_SIZE = 50_000
_plain: set[str] = set()
_words: dict[str, tuple[str, ...]] = {}
_humps: dict[str, list[str]] = {}


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """The pattern, compiled when a token first mixes cases: a search whose words do not (most)
    loads no `re`."""
    import re

    return re.compile(pattern)


def _camel_words(token: str) -> tuple[str, ...] | None:
    """The camel-case words of a token, or None when it has none to split."""
    if len(token) > _MAX_TOKEN or token.islower() or token.isupper() or token.istitle():
        if len(_plain) >= _CACHE_SIZE:
            _plain.clear()
        _plain.add(token)
        return None
    if len(_words) >= _CACHE_SIZE:
        _words.clear()
    found = _words[token] = tuple(_compiled(_CAMEL_WORD).findall(token))
    return found


def identifier_parts(text: str) -> str:
    """`parseConfig HTTPServer` → `parse Config HTTP Server` (each distinct word once; the
    tokenizer folds case)."""
    seen: set[str] = set()
    pieces: list[str] = []
    for token in set(text[:_MAX_PARTS_INPUT].split()).difference(_plain):
        found = _words.get(token)
        if found is None:
            found = _camel_words(token)
            if found is None:
                continue
        for word in found:
            if word not in seen:
                seen.add(word)
                humps = _humps.get(word)
                if humps is None:
                    if len(_humps) >= _CACHE_SIZE:
                        _humps.clear()
                    humps = _humps[word] = _compiled(_HUMP).findall(word)
                pieces.extend(humps)
    return " ".join(pieces)
