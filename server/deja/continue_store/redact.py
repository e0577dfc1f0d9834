"""Secrets are replaced by `[redacted:KIND]` before any text is stored or printed.

Throughput: THROUGHPUT_PLACEHOLDER

Each rule is a regex that starts with a literal (so `re` scans for it at C speed and the common,
secret-free text costs one cheap scan per rule); lookbehinds come after that literal, never before
it, because a leading lookbehind turns the scan into a slow char-by-char match. Case-insensitive
rules run on a lowered copy with the same offsets, as `(?i)` also defeats the literal scan.

Key/value rule (the ambiguous cases, decided here):
- A key is an identifier that *ends* in password/passwd/pwd, secret, token, or api/access/secret/
  private + key (`DB_PASSWORD`, `clientSecret`, `x-api-key`, `--github-token`); `tokenizer`,
  `max_tokens`, `token_type`, `password_hash(` are not keys. `PWD`/`OLDPWD` are the shell's cwd.
- The key name is kept; only the value becomes `[redacted:password|token|secret]`.
- A quoted literal value is redacted after any separator (`k = "v"`, `"k": "v"`, `k: "v"`,
  `k: str = "v"`, `--k "v"`, also `\\"v\\"` inside JSON-encoded strings).
- An unquoted value is redacted only where config/shell syntax makes it a literal: `K=v` with no
  spaces (env files, `export`, query strings, `--k=v`, `Password=v;`), `--k v`, and `k: v` as a
  whole line (YAML, HTTP headers). Spaced `k = v` is code (`token = tokens[0]`, `password = pw`):
  redacted only if `v` cannot be an expression (e.g. `pypi-AgE...`, `s3cr3t!`). Calls, indexing,
  `a.b` chains, kwargs (`f(token=tok)`), type names (`password: str`) and numbers are code.
- Placeholders are never redacted: empty, `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `<...>`, `{...}`,
  `****`, `xxx`, `...`, null/none/true/false, values that only repeat a credential word
  (`token=$TOKEN`, `api_key=OPENAI_API_KEY`, `password: your-password`), and `[redacted:...]`.
- Token and secret values shorter than 8 characters are kept (machine-made credentials are long;
  `{"token": "hello"}` in LLM logprobs is not one); passwords of any length are redacted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["redact"]

# (start, end, replacement) of one redaction; rules yield them in order, without overlaps.
_Span = tuple[int, int, str]


def _mark(kind: str) -> str:
    return f"[redacted:{kind}]"


def _splice(text: str, spans: Iterable[_Span]) -> str:
    parts: list[str] = []
    last = 0
    for start, end, replacement in spans:
        if start < last:  # two rules claimed the same text: the first one wins
            continue
        parts.append(text[last:start])
        parts.append(replacement)
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def _random_enough(body: str) -> bool:
    """Machine-made keys mix digits or cases; `sk-some-long-css-class-name` does not."""
    return any(c.isdigit() for c in body) or (body.lower() != body and body.upper() != body)


# --- PEM private keys --------------------------------------------------------------------------

_PEM_GATE = re.compile(r"PRIVATE KEY")
_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
# Key material must follow the BEGIN line, so code that merely mentions the header is kept.
_PEM = re.compile(
    r"-----BEGIN" + _PEM_LABEL + r"(?:[\s]|\\[rn])+(?:[A-Za-z-]+:[^\r\n\\]*(?:\r?\n|\\r?\\n))*"
    r"(?:[\s]|\\[rn])*[A-Za-z0-9+/=]{16}"
    r".*?(?:-----END" + _PEM_LABEL + r"|\Z)",
    re.DOTALL,
)
_PEM_END = re.compile(r"-----END" + _PEM_LABEL)
# The text before an END line whose BEGIN was cut off, read backwards: base64 lines of the key.
_NL_REVERSED = r"(?:\n\r?|n\\(?:r\\)?)"
_PEM_BODY_REVERSED = re.compile(
    rf"[ \t]*{_NL_REVERSED}?[A-Za-z0-9+/=]*[ \t]*(?:{_NL_REVERSED}[A-Za-z0-9+/=]{{16,}}[ \t]*)+"
)


def _private_keys(text: str) -> str:
    if _PEM_GATE.search(text) is None:
        return text
    text = _splice(text, ((m.start(), m.end(), _mark("private-key")) for m in _PEM.finditer(text)))
    spans: list[_Span] = []
    for m in _PEM_END.finditer(text):
        window = text[max(0, m.start() - 20_000) : m.start()]
        body = _PEM_BODY_REVERSED.match(window[::-1])
        if body is not None and body.end() > 0:
            spans.append((m.start() - body.end(), m.end(), _mark("private-key")))
    return _splice(text, spans)


# --- Tokens with a recognisable shape ----------------------------------------------------------
# Each pattern starts with its literal; the boundary check is a lookbehind placed after it.

_API_KEY = re.compile(r"sk-(?<![A-Za-z0-9_-]sk-)(?P<body>[A-Za-z0-9_-]{20,})")
_GITHUB = re.compile(
    r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_(?P<a>[A-Za-z0-9]{20,})|ithub_pat_(?P<b>[A-Za-z0-9_]{20,}))"
)
_AWS_GOOGLE = re.compile(
    r"A(?<![A-Za-z0-9]A)(?:(?P<aws>[KS]IA[A-Z0-9]{16})(?![A-Za-z0-9])|(?P<google>Iza[\w-]{35,}))",
    re.ASCII,
)
_SLACK = re.compile(r"xox(?<![A-Za-z0-9_-]xox)[baprs]-(?P<body>[A-Za-z0-9-]{10,})")
_JWT_GATE = re.compile(r"J(?<=eyJ)")
_JWT = re.compile(
    r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)?"
)


def _shaped(
    text: str, pattern: re.Pattern[str], accept: Callable[[re.Match[str]], str | None]
) -> str:
    spans: list[_Span] = []
    for m in pattern.finditer(text):
        kind = accept(m)
        if kind is not None:
            spans.append((m.start(), m.end(), _mark(kind)))
    return _splice(text, spans)


def _accept_api_key(m: re.Match[str]) -> str | None:
    return "api-key" if _random_enough(m["body"]) else None


def _accept_github(m: re.Match[str]) -> str | None:
    return "github-token" if _random_enough(m["a"] or m["b"]) else None


def _accept_aws_google(m: re.Match[str]) -> str | None:
    return "aws-key" if m["aws"] else "google-key"


def _accept_slack(m: re.Match[str]) -> str | None:
    return "slack-token" if any(c.isdigit() for c in m["body"]) else None


def _accept_jwt(m: re.Match[str]) -> str | None:
    return "jwt"


def _tokens(text: str) -> str:
    text = _shaped(text, _API_KEY, _accept_api_key)
    text = _shaped(text, _GITHUB, _accept_github)
    text = _shaped(text, _AWS_GOOGLE, _accept_aws_google)
    text = _shaped(text, _SLACK, _accept_slack)
    if _JWT_GATE.search(text) is not None:
        text = _shaped(text, _JWT, _accept_jwt)
    return text


# --- Credentials in URLs: scheme://user:password@host --------------------------------------------

_URL = re.compile(
    r"://(?<=[A-Za-z0-9]://)[^\s:/?#@\"'<>\[\]\\]*:(?P<pw>[^\s/?#\"'<>\\]+)@(?=[A-Za-z0-9\[])"
)


def _url_credentials(text: str) -> str:
    if "@" not in text:  # memchr: far cheaper than looking for "://"
        return text
    spans: list[_Span] = []
    for m in _URL.finditer(text):
        if not _placeholder(m["pw"]):
            spans.append((m.start("pw"), m.end("pw"), _mark("url-credentials")))
    return _splice(text, spans)


# --- Placeholders and code (shared by the rules below) ------------------------------------------

_NULLISH = frozenset({"none", "null", "nil", "undefined", "true", "false", "empty", "string"})
_MASK_CHARS = frozenset("*x.•…-_#?")
_CREDENTIAL_WORDS = ("token", "secret", "passw", "apikey", "accesskey", "privatekey")
_PLACEHOLDER_WORDS = ("your", "placeholder", "changeme", "redacted")


def _placeholder(value: str) -> bool:
    v = value.strip()
    if not v or v[0] in "$%<{" or "[redacted:" in v:
        return True
    low = v.lower()
    if low in _NULLISH or set(low) <= _MASK_CHARS:
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS):
        return True
    compact = low.replace("_", "").replace("-", "")
    return any(w in compact for w in _CREDENTIAL_WORDS)


# --- Bearer tokens -------------------------------------------------------------------------------

# Runs on the lowered text. The token ends on a non-dot so "use Bearer auth." keeps "auth".
_BEARER = re.compile(r"bearer(?<![a-z0-9_]bearer)[ \t]+(?P<tok>[a-z0-9._~+/-]*[a-z0-9_~+/-]=*)")
_WORDISH = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*")


def _bearer_token(token: str) -> bool:
    if _WORDISH.fullmatch(token):  # "Bearer tokens", "Bearer YOUR_TOKEN"
        return len(token) >= 24
    return len(token) >= 8 and not _placeholder(token)


def _bearer(text: str, low: str) -> str:
    spans: list[_Span] = []
    for m in _BEARER.finditer(low):
        start, end = m.span("tok")
        if _bearer_token(text[start:end]):
            spans.append((start, end, _mark("bearer")))
    return _splice(text, spans)


# --- key = value assignments ---------------------------------------------------------------------

# Everything after the key word, on the lowered text. Alternatives, in order: quoted key (JSON,
# dicts), annotated (`k: str = "v"`), `K=v`, spaced `k = v` / `:=` / `=>`, `k: v`, `--k v`.
_AFTER_KEY = r"""
(?![a-z0-9_])
(?:
    (?P<kq>\\{0,3}["'])[ \t]*(?::|=>|=(?!=))[ \t]*
  | [ \t]*:[ \t]*[a-z_][a-z0-9_.]*(?:\[[^\]\r\n]{0,80}\])?(?:[ \t]*\|[ \t]*[a-z_][a-z0-9_.]*)?
    [ \t]*=(?![=~>])[ \t]*(?P<ann>)(?=[rbfu]{0,2}["'`])
  | (?P<eq>=)(?![=~>])
  | (?P<sp>[ \t]*(?::=|=>|=(?![=~>]))[ \t]*)
  | (?P<colon>[ \t]*:(?![:/=])[ \t]*)
  | (?:(?<=-token)|(?<=-password)|(?<=-passwd)|(?<=-pwd)|(?<=-secret)|(?<=key))
    (?P<flag>[ \t]+)
)
(?:
    [rbfu]{0,2}"(?P<dq>(?:[^"\\\r\n]|\\[^\r\n])*)
  | [rbfu]{0,2}'(?P<sq>(?:[^'\\\r\n]|\\[^\r\n])*)
  | `(?P<bq>[^`\\\r\n]*)
  | \\{1,3}["'](?P<eq_>[^"'\\\r\n]*)
  | (?P<uv>[^\s"'`,;&<>(){}\[\]\\]+)
)
"""
# Anchored on a rare letter of each key word, then checked by lookbehind.
_KEY_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"k(?<=tok)en" + _AFTER_KEY, re.VERBOSE), "token"),
    (
        re.compile(
            r"key(?:(?<=apikey)|(?<=api_key)|(?<=api-key)|(?<=accesskey)|(?<=access_key)"
            r"|(?<=access-key)|(?<=secretkey)|(?<=secret_key)|(?<=secret-key)|(?<=privatekey)"
            r"|(?<=private_key)|(?<=private-key))" + _AFTER_KEY,
            re.VERBOSE,
        ),
        "secret",
    ),
    (re.compile(r"w(?:(?<=passw)(?:ord|d)|(?<=pw)d)" + _AFTER_KEY, re.VERBOSE), "password"),
    (re.compile(r"cret(?<=secret)" + _AFTER_KEY, re.VERBOSE), "secret"),
)
_QUOTED_GROUPS = ("dq", "sq", "bq", "eq_")
_KEY_CHARS_REVERSED = re.compile(r"[A-Za-z0-9_.$-]*")
# `key: value` counts as a whole line when the key starts a line (after indentation or a YAML
# `- `), or a quoted string as in `curl -H "X-Api-Key: v"`; read backwards from the key.
_LINE_START_REVERSED = re.compile(r"[ \t]*(?:-[ \t]*)?(?:\n|\r|n\\|\Z)|[\"']")
_LINE_END = re.compile(r"(?:[ \t]+#.*)?[ \t]*(?:\r|\n|\\[rn\"']|[\"']|\Z)")
_CODE_CHAIN = re.compile(r"[-+*&!~]*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\+\+|--)?")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"[-+]?\d[\w.]*")
_METAVAR = re.compile(r"[A-Z][A-Z0-9_]*")
_PASCAL = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]*)*")
_TYPE_NAMES = frozenset(
    {"str", "string", "bytes", "int", "integer", "number", "bool", "boolean", "any", "object"}
    | {"unknown", "optional", "secretstr", "secretbytes", "text", "char", "varchar"}
)


def _key_value(text: str, m: re.Match[str], kind: str) -> _Span | None:
    group = next((g for g in _QUOTED_GROUPS if m[g] is not None), "uv")
    start, end = m.span(group)
    value = text[start:end]
    if _placeholder(value):
        return None
    if kind != "password" and (len(value) < 8 or (kind == "token" and any(map(str.isspace, value)))):
        return None
    word_start = m.start()
    lead = text[max(0, word_start - 80) : word_start][::-1]
    key_len = _KEY_CHARS_REVERSED.match(lead)
    key_start = word_start - (key_len.end() if key_len else 0)
    key = text[key_start : m.start(group)].lower()
    if kind == "password" and key.lstrip("-$").startswith(("pwd", "oldpwd")):
        return None  # the shell's working directory
    if group == "bq" and any(map(str.isspace, value)):
        return None  # a shell command or a template, not a literal
    if m["flag"] is not None:
        if not key.startswith("--"):
            return None
        if group == "uv" and (value[0] == "-" or _METAVAR.fullmatch(value)):
            return None
    elif group == "uv" and not _literal_unquoted(text, m, key_start, value, end):
        return None
    return (start, end, _mark(kind))


def _literal_unquoted(text: str, m: re.Match[str], key_start: int, value: str, end: int) -> bool:
    """Whether an unquoted value is a literal rather than code (see the module docstring)."""
    if m["kq"] is not None or m["ann"] is not None:
        return False  # `"token": tok`, JSON numbers and null
    after = text[end : end + 1]
    if after in ("(", "[") or _DOTTED.fullmatch(value):
        return False  # a call, an index, an attribute
    if m["eq"] is not None:
        return not (after in (",", ")", "}", "]") and _IDENTIFIER.fullmatch(value))
    if m["sp"] is not None:
        return not (_CODE_CHAIN.fullmatch(value) or _NUMBER.fullmatch(value))
    # `key: value`: only as a whole line (YAML, HTTP headers), and not a type annotation.
    lead = text[max(0, key_start - 200) : key_start][::-1]
    line = _LINE_START_REVERSED.match(lead)
    if line is None or (line.end() == len(lead) and key_start > 200):
        return False  # `\Z` matched the end of the window, not the start of the text
    if _LINE_END.match(text, end) is None:
        return False
    return value.lower() not in _TYPE_NAMES and not _PASCAL.fullmatch(value)


def _key_values(text: str, low: str) -> str:
    spans: list[_Span] = []
    for pattern, kind in _KEY_RULES:
        for m in pattern.finditer(low):
            span = _key_value(text, m, kind)
            if span is not None:
                spans.append(span)
    if len(spans) > 1:
        spans.sort()
    return _splice(text, spans)


# --- Entry point ---------------------------------------------------------------------------------


def _lowered(text: str) -> str:
    """Lowercase with the same offsets (a few non-ASCII letters lowercase to two characters)."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low


def redact(text: str) -> str:
    """Return `text` with each secret replaced by `[redacted:KIND]`."""
    text = _private_keys(text)
    text = _tokens(text)
    text = _url_credentials(text)
    low = _lowered(text)
    redacted = _bearer(text, low)
    if redacted is not text:
        text, low = redacted, _lowered(redacted)
    return _key_values(text, low)
