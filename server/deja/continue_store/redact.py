"""Secrets are replaced by `[redacted:KIND]` before any text is stored or printed.

Kinds: api-key (`sk-…`, `sk-proj-…`, `sk-ant-…`; Stripe `sk_live_…`), github-token, aws-key,
slack-token, google-key, jwt, bearer (`Bearer <t>`; after `Authorization:` also `bearer`/`Token`),
basic-auth (after `Authorization:`), private-key (PEM blocks, also cut at either end),
url-credentials (`scheme://user:[redacted:…]@host`), and password/token/secret for key=value.

Speed: this runs over everything the indexer stores, nearly none of which holds a secret. Each
rule is one regex that starts with a literal, mostly a single rare letter of what it looks for
(the `k` of `token`, `sk-` and `api_key`; the `J` of `eyJ`), and checks the rest with lookbehinds
placed after it: `re` then skips in C from one occurrence of the letter to the next, whereas a
regex that starts with a lookbehind, a class, an alternation or `(?i)` is tried at every position
(far slower). Case variants get their own letter (`w` for password, `W` for PASSWORD). A rule
whose letter is absent costs one memchr; all redactions are spliced in once, at the end.

The rules themselves are in `redact_rules.py`, the key/value rule's ambiguous cases in
`redact_key_value.py`.
"""

from __future__ import annotations

from .redact_key_value import Span
from .redact_rules import GENERIC, RULES

__all__ = ["redact"]


def redact(text: str) -> str:
    """Return `text` with each secret replaced by `[redacted:KIND]`."""
    spans: list[Span] = []
    for letter, starts_with_letter, pattern, handler in RULES:
        if letter not in text:  # `in` is a memchr without `find`'s argument parsing
            continue
        # In a long text, a rare letter's first occurrence is worth finding by memchr too.
        at = text.find(letter) if starts_with_letter and len(text) > 2048 else 0
        m = pattern.search(text, at)
        while m is not None:
            span = handler(text, m)
            if span is None:
                m = pattern.search(text, m.end())
            else:
                spans.append(span)
                # Past a long value (the key/value rule's blob) to stay linear; otherwise on, as
                # a value may hold a token of a more specific kind: `api_key="sk-..."`.
                m = pattern.search(text, span[1] if span[1] - span[0] > 512 else m.end())
    if not spans:
        return text
    spans.sort(key=lambda s: s[0])
    parts: list[str] = []
    last = 0
    start, end, replacement = spans[0]
    for s, e, r in spans[1:]:
        if s < end:  # overlapping: one redaction covering both, named by the most specific kind
            end = max(end, e)
            if replacement in GENERIC:
                replacement = r
            continue
        parts += (text[last:start], replacement)
        last, start, end, replacement = end, s, e, r
    parts += (text[last:start], replacement, text[end:])
    return "".join(parts)
