"""The redaction rules: one regex per anchor letter (see `redact.py` on speed) and the handler
that judges each match, for tokens of a known shape, private keys, bearer tokens, URL
credentials and key/value assignments (`redact_key_value.py`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from .redact_key_value import AFTER_KEY, KEY_FAMILY, Span, key_rule, key_value, mark, placeholder

_Handler = Callable[[str, re.Match[str]], "Span | None"]


def _random_enough(body: str) -> bool:
    """Machine-made keys mix digits or cases; `sk-some-long-css-class-name` does not."""
    return any(c.isdigit() for c in body) or (body.lower() != body and body.upper() != body)


def _token_start(length: int, glue: str = "A-Za-z0-9_-") -> str:
    """Lookbehind: the token that began `length` characters back is not glued to a word. An
    escaped `\\n` (JSON) before it counts as a separator, not as the letter n."""
    dots = "." * length
    return rf"(?:(?<![{glue}]{dots})|(?<=\\[nrt]{dots}))"


# --- Tokens with a recognisable shape ----------------------------------------------------------


def _token_span(kind: str, back: int, group: str = "") -> _Handler:
    """Redact from `back` characters before the anchor letter to the end of the match."""

    def handle(text: str, m: re.Match[str]) -> Span | None:
        if group and not _random_enough(m[group]):
            return None
        return (m.start() - back, m.end(), mark(kind))

    return handle


_JWT = re.compile(
    r"J(?<=eyJ)" + _token_start(3) + r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)?"
)
_GITHUB = re.compile(
    r"g(?:h[pousr]_" + _token_start(4, "A-Za-z0-9_") + r"(?P<a>[A-Za-z0-9]{20,})"
    r"|ithub_pat_" + _token_start(11, "A-Za-z0-9_") + r"(?P<b>[A-Za-z0-9_]{20,}))"
)
_SLACK = re.compile(r"xox" + _token_start(3) + r"[baprs]-(?P<body>[A-Za-z0-9-]{10,})")


def _github(text: str, m: re.Match[str]) -> Span | None:
    if not _random_enough(m["a"] or m["b"]):
        return None
    return (m.start(), m.end(), mark("github-token"))


def _slack(text: str, m: re.Match[str]) -> Span | None:
    if not any(c.isdigit() for c in m["body"]):
        return None
    return (m.start(), m.end(), mark("slack-token"))


# --- PEM private keys --------------------------------------------------------------------------

_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
# Key material must follow the BEGIN line, so code that merely mentions the header is kept; with
# no END line (the text was cut) the key runs to the end of the text.
_PEM = re.compile(
    r"-----BEGIN" + _PEM_LABEL + r"(?:\s|\\[rn])+(?:[A-Za-z-]+:[^\r\n\\]*(?:\r?\n|\\r?\\n))*"
    r"(?:\s|\\[rn])*[A-Za-z0-9+/=]{16}.*?(?:-----END" + _PEM_LABEL + r"|(?=-----BEGIN)|\Z)",
    re.DOTALL,
)
_PEM_END = re.compile(r"-----END" + _PEM_LABEL)
# An END line whose BEGIN was cut off: the base64 lines before it, read backwards.
_NL_REVERSED = r"(?:\n\r?|n\\(?:r\\)?)"
_PEM_BODY_REVERSED = re.compile(
    rf"[ \t]*{_NL_REVERSED}?[A-Za-z0-9+/=]*[ \t]*(?:{_NL_REVERSED}[A-Za-z0-9+/=]{{16,}}[ \t]*)+"
)


def _private_key(text: str, m: re.Match[str]) -> Span | None:
    line_start = max(0, m.start() - 60)
    begin = text.rfind("-----BEGIN", line_start, m.start())
    if begin >= 0:
        block = _PEM.match(text, begin)
        return None if block is None else (begin, block.end(), mark("private-key"))
    end = text.rfind("-----END", line_start, m.start())
    footer = None if end < 0 else _PEM_END.match(text, end)
    if footer is None:
        return None
    window = text[max(0, end - 10_000) : end]  # 8192-bit RSA is ~6.5 KB of base64
    body = _PEM_BODY_REVERSED.match(window[::-1])
    if body is None:
        return None
    return (end - body.end(), footer.end(), mark("private-key"))


# --- Bearer tokens -----------------------------------------------------------------------------

# The token ends on a non-dot so "use Bearer auth." keeps "auth".
_B64TOKEN = r"(?P<tok>[A-Za-z0-9._~+/-]*[A-Za-z0-9_~+/-]=*)"
_WORDISH = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*")


def _bearer(text: str, m: re.Match[str]) -> Span | None:
    token = m["tok"]
    kind = "basic-auth" if "basic" in m.re.groupindex and m["basic"] is not None else "bearer"
    if _WORDISH.fullmatch(token):  # "Bearer tokens", "Bearer YOUR_TOKEN"
        if len(token) < 24:
            return None
    elif len(token) < 8 or placeholder(token):
        return None
    return (m.start("tok"), m.end("tok"), mark(kind))


_BEARER = re.compile(
    r"B(?:earer|EARER)" + _token_start(6, "A-Za-z0-9_") + r"(?=[ \t]+" + _B64TOKEN + ")"
)


# --- Credentials in URLs: scheme://user:password@host ------------------------------------------

_URL = re.compile(
    r"://(?<=[A-Za-z0-9]://)"
    r"(?=[^\s:/?#@\"'<>\[\]\\]*:(?P<pw>[^\s/?#\"'<>\\]+)@[A-Za-z0-9\[])"
)


def _url_credentials(text: str, m: re.Match[str]) -> Span | None:
    if placeholder(m["pw"]):
        return None
    return (m.start("pw"), m.end("pw"), mark("url-credentials"))


# --- The rules ---------------------------------------------------------------------------------


def _dispatch(*handlers: tuple[str, _Handler]) -> _Handler:
    """Call the handler of the first named group that matched."""

    def handle(text: str, m: re.Match[str]) -> Span | None:
        for group, handler in handlers:
            if m[group] is not None:
                return handler(text, m)
        return None

    return handle


# After the anchor letter each alternative starts with a literal, which `re` checks before trying
# the alternative; the lookbehinds confirm the rest of the word.
_K_LOWER = re.compile(
    r"k(?:-(?<=sk-)" + _token_start(3) + r"(?P<sk>[A-Za-z0-9_-]{20,})"
    r"|_(?:live|test)_(?<=[sr]k_...._)" + _token_start(8) + r"(?P<stripe>[A-Za-z0-9]{16,})"
    r"|e(?:n(?<=[Tt]oken)(?P<w_token>)|y" + KEY_FAMILY + r"(?P<w_key>))" + AFTER_KEY + ")",
    re.VERBOSE,
)
_K_UPPER = re.compile(
    r"K(?:IA(?<=AKIA)" + _token_start(4, "A-Za-z0-9") + r"(?P<aws>[A-Z0-9]{16})(?![A-Za-z0-9])"
    r"|EY(?<=PRIVATE\ KEY)(?P<pem>)"
    r"|(?:EN(?<=TOKEN)(?P<w_token>)|(?:EY|ey)" + KEY_FAMILY + r"(?P<w_key>))" + AFTER_KEY + ")",
    re.VERBOSE,
)
_S_UPPER = re.compile(
    r"S(?:IA(?<=ASIA)" + _token_start(4, "A-Za-z0-9") + r"(?P<aws>[A-Z0-9]{16})(?![A-Za-z0-9])"
    r"|ECRET(?P<w_secret>)" + AFTER_KEY + ")",
    re.VERBOSE,
)
_Z = re.compile(
    r"za(?:(?<=AIza)" + _token_start(4, "A-Za-z0-9") + r"(?P<google>[\w-]{35,})"
    r"|tion(?<=[Aa]uthorization)(?=\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?"
    r"(?i:bearer|token|(?P<basic>basic))[ \t]+" + _B64TOKEN + "))",
    re.ASCII,
)
_PASSWORD_LOWER = r"w(?:ord(?<=[Pp]assword)|d(?:(?<=[Pp]asswd)|(?<=[Pp]wd)))(?P<w_password>)"
_PASSWORD_UPPER = (
    r"W(?:ORD(?<=PASSWORD)|D(?:(?<=PASSWD)|(?<=PWD))|ord(?<=[Pp]assWord))(?P<w_password>)"
)
_SECRET_LOWER = r"cret(?<=[Ss]ecret)(?P<w_secret>)"

# A rule: (letter the text must contain, whether the pattern starts with that letter, pattern,
# handler). Looking the letter up first is a memchr: rules whose letter is absent cost nearly
# nothing, and the scan starts at the letter's first occurrence.
Rule = tuple[str, bool, re.Pattern[str], _Handler]


def _rule(pattern: re.Pattern[str], handler: _Handler, gate: str = "") -> Rule:
    letter = gate or pattern.pattern[0]
    return (letter, pattern.pattern.startswith(letter), pattern, handler)


# Spans of different rules may overlap (`API_KEY=sk-...`, `Bearer eyJ...`): the union is redacted.
GENERIC = frozenset(mark(kind) for kind in ("password", "token", "secret", "bearer"))
RULES: tuple[Rule, ...] = (
    _rule(
        _K_LOWER,
        _dispatch(
            ("sk", _token_span("api-key", 1, "sk")),
            ("stripe", _token_span("api-key", 1, "stripe")),
            ("w_token", key_value),
            ("w_key", key_value),
        ),
    ),
    _rule(
        _K_UPPER,
        _dispatch(
            ("aws", _token_span("aws-key", 1)),
            ("pem", _private_key),
            ("w_token", key_value),
            ("w_key", key_value),
        ),
    ),
    _rule(key_rule(_PASSWORD_LOWER), key_value),
    _rule(key_rule(_PASSWORD_UPPER), key_value),
    _rule(key_rule(_SECRET_LOWER), key_value),
    _rule(_S_UPPER, _dispatch(("aws", _token_span("aws-key", 1)), ("w_secret", key_value))),
    _rule(_Z, _dispatch(("google", _token_span("google-key", 2)), ("tok", _bearer))),
    _rule(_JWT, _token_span("jwt", 2)),
    _rule(_GITHUB, _github),
    _rule(_SLACK, _slack),
    _rule(_BEARER, _bearer),
    _rule(_URL, _url_credentials, gate="@"),
)
