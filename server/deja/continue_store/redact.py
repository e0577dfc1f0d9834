# Throughput: ~200 MB/s on 50 MB of secret-free code, prose, shell output; ~185 with some secrets.
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
(10-100x slower). Case variants get their own letter (`w` for password, `W` for PASSWORD). A rule
whose letter is absent costs one memchr; all redactions are spliced in once, at the end.

Key/value rule (the ambiguous cases, decided here):
- A key is an identifier that *ends* in password/passwd/pwd, secret, token, or api/access/secret/
  private + key (`DB_PASSWORD`, `clientSecret`, `X-Api-Key`, `--github-token`); `tokenizer`,
  `max_tokens`, `token_type`, `password_hash(` are not keys. `PWD`/`OLDPWD` are the shell's cwd.
- The key name is kept; only the value becomes `[redacted:password|token|secret]`.
- A quoted literal value is redacted after any separator (`k = "v"`, `"k": "v"`, `k: "v"`,
  `k: str = "v"`, `--k "v"`, SQL `PASSWORD 'v'`, also `\\"v\\"` inside JSON-encoded strings),
  unless the quote closes a string the key is in (`prompt="Password: "`).
- An unquoted value is redacted only where config/shell syntax makes it a literal: `K=v` with no
  spaces (env files, `export`, query strings, `--k=v`, `Password=v;`), `--k v`, and `k: v` as a
  whole line or quoted string (YAML, HTTP headers). Spaced `k = v` is code (`token = tokens[0]`,
  `password = pw`): redacted only if `v` cannot be an expression (`pypi-AgE...`, `s3cr3t!`) or
  mixes letters and digits (`password = hunter2` in an INI file).
  Calls, indexing, `a.b` chains, kwargs (`f(token=tok)`), type names (`password: str`), JSON
  literals (`"token": null`) and numbers in code are kept.
- Placeholders are never redacted: empty, `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `<...>`, `{...}`,
  `****`, `xxx`, `...`, null/none/true/false, values that only repeat a credential word
  (`api_key=OPENAI_API_KEY`, `password: your-password`), and `[redacted:...]` (idempotence).
- Token and secret values shorter than 8 characters are kept (machine-made credentials are long;
  `{"token": "hello"}` in LLM logprobs is not one); passwords of any length are redacted.
Not covered: `curl -u user:pw`, `mysql -pPW`, `.netrc`, `IDENTIFIED BY 'pw'`, a lowercase
`bearer` without `Authorization`, and spaced values that read as code (`password = a1.b2`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["redact"]

# (start, end, replacement) of one redaction.
_Span = tuple[int, int, str]
_Handler = Callable[[str, re.Match[str]], "_Span | None"]


def _mark(kind: str) -> str:
    return f"[redacted:{kind}]"


def _random_enough(body: str) -> bool:
    """Machine-made keys mix digits or cases; `sk-some-long-css-class-name` does not."""
    return any(c.isdigit() for c in body) or (body.lower() != body and body.upper() != body)


def _token_start(length: int, glue: str = "A-Za-z0-9_-") -> str:
    """Lookbehind: the token that began `length` characters back is not glued to a word. An
    escaped `\\n` (JSON) before it counts as a separator, not as the letter n."""
    dots = "." * length
    return rf"(?:(?<![{glue}]{dots})|(?<=\\[nrt]{dots}))"


# --- Placeholders ------------------------------------------------------------------------------

_NULLISH = frozenset({"none", "null", "nil", "undefined", "true", "false", "empty", "string"})
_MASK_CHARS = frozenset("*x.•…-_#?")
_CREDENTIAL_WORDS = ("token", "secret", "passw", "apikey", "accesskey", "privatekey")
_PLACEHOLDER_WORDS = ("your", "placeholder", "changeme", "redacted")


def _placeholder(value: str) -> bool:
    v = value.strip()
    if not v or v[0] in "$%<{:@" or "[redacted:" in v:  # variables, templates, bind parameters
        return True
    low = v.lower()
    if low in _NULLISH or set(low) <= _MASK_CHARS:
        return True
    # A name or a hint rather than a value: `OPENAI_API_KEY`, `your-password`, `changeme`,
    # `mysecretpassword` (but not `Passw0rd!`).
    compact = low.replace("_", "").replace("-", "")
    words = _PLACEHOLDER_WORDS + _CREDENTIAL_WORDS
    return compact.isalpha() and any(w in compact for w in words)


# --- Tokens with a recognisable shape ----------------------------------------------------------


def _token_span(kind: str, back: int, group: str = "") -> _Handler:
    """Redact from `back` characters before the anchor letter to the end of the match."""

    def handle(text: str, m: re.Match[str]) -> _Span | None:
        if group and not _random_enough(m[group]):
            return None
        return (m.start() - back, m.end(), _mark(kind))

    return handle


_JWT = re.compile(
    r"J(?<=eyJ)" + _token_start(3) + r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)?"
)
_GITHUB = re.compile(
    r"g(?:h[pousr]_" + _token_start(4, "A-Za-z0-9_") + r"(?P<a>[A-Za-z0-9]{20,})"
    r"|ithub_pat_" + _token_start(11, "A-Za-z0-9_") + r"(?P<b>[A-Za-z0-9_]{20,}))"
)
_SLACK = re.compile(r"xox" + _token_start(3) + r"[baprs]-(?P<body>[A-Za-z0-9-]{10,})")


def _github(text: str, m: re.Match[str]) -> _Span | None:
    if not _random_enough(m["a"] or m["b"]):
        return None
    return (m.start(), m.end(), _mark("github-token"))


def _slack(text: str, m: re.Match[str]) -> _Span | None:
    if not any(c.isdigit() for c in m["body"]):
        return None
    return (m.start(), m.end(), _mark("slack-token"))


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


def _private_key(text: str, m: re.Match[str]) -> _Span | None:
    line_start = max(0, m.start() - 60)
    begin = text.rfind("-----BEGIN", line_start, m.start())
    if begin >= 0:
        block = _PEM.match(text, begin)
        return None if block is None else (begin, block.end(), _mark("private-key"))
    end = text.rfind("-----END", line_start, m.start())
    footer = None if end < 0 else _PEM_END.match(text, end)
    if footer is None:
        return None
    window = text[max(0, end - 10_000) : end]  # 8192-bit RSA is ~6.5 KB of base64
    body = _PEM_BODY_REVERSED.match(window[::-1])
    if body is None:
        return None
    return (end - body.end(), footer.end(), _mark("private-key"))


# --- Bearer tokens -----------------------------------------------------------------------------

# The token ends on a non-dot so "use Bearer auth." keeps "auth".
_B64TOKEN = r"(?P<tok>[A-Za-z0-9._~+/-]*[A-Za-z0-9_~+/-]=*)"
_WORDISH = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*")


def _bearer(text: str, m: re.Match[str]) -> _Span | None:
    token = m["tok"]
    kind = "basic-auth" if "basic" in m.re.groupindex and m["basic"] is not None else "bearer"
    if _WORDISH.fullmatch(token):  # "Bearer tokens", "Bearer YOUR_TOKEN"
        if len(token) < 24:
            return None
    elif len(token) < 8 or _placeholder(token):
        return None
    return (m.start("tok"), m.end("tok"), _mark(kind))


_BEARER = re.compile(
    r"B(?:earer|EARER)" + _token_start(6, "A-Za-z0-9_") + r"(?=[ \t]+" + _B64TOKEN + ")"
)


# --- Credentials in URLs: scheme://user:password@host ------------------------------------------

_URL = re.compile(
    r"://(?<=[A-Za-z0-9]://)"
    r"(?=[^\s:/?#@\"'<>\[\]\\]*:(?P<pw>[^\s/?#\"'<>\\]+)@[A-Za-z0-9\[])"
)


def _url_credentials(text: str, m: re.Match[str]) -> _Span | None:
    if _placeholder(m["pw"]):
        return None
    return (m.start("pw"), m.end("pw"), _mark("url-credentials"))


# --- key = value assignments -------------------------------------------------------------------

# Everything after the key word. Separators, in order: quoted key (JSON, dicts), annotation
# (`k: str = "v"`), `K=v`, spaced `k = v` / `:=` / `=>`, `k: v`, `--k v`, `k "v"`. Then the value.
_AFTER_KEY = r"""
(?=  # a lookahead, so a rejected value can still hold another match
(?![A-Za-z0-9_])
(?:
    (?P<kq>\\{0,3}["'])[ \t]*(?::|=>|=(?!=))[ \t]*
  | [ \t]*:[ \t]*[A-Za-z_][\w.]*(?:\[[^\]\r\n]{0,80}\])?(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]*)?
    [ \t]*=(?![=~>])[ \t]*(?P<ann>)(?=[rbfuRBFU]{0,2}["'`])
  | (?P<eq>=)(?![=~>])
  | (?P<sp>[ \t]*(?::=|=>|=(?![=~>]))[ \t]*)
  | (?P<colon>[ \t]*:(?![:/=])[ \t]*)
  | (?i:(?<=[-_]token)|(?<=[-_]password)|(?<=[-_]passwd)|(?<=[-_]pwd)|(?<=[-_]secret)|(?<=key))
    (?P<flag>[ \t]+)
  | [ \t]+(?=[rbfuRBFU]{0,2}["'])  # SQL `PASSWORD 'v'`, prose `the token "v"`
)
(?:
    [rbfuRBFU]{0,2}(?P<dq_>")(?P<dq>VALUE_dq{0,512})
  | [rbfuRBFU]{0,2}(?P<sq_>')(?P<sq>VALUE_sq{0,512})
  | (?P<bq_>`)(?P<bq>VALUE_bq{0,512})
  | \\{1,3}(?P<eq__>["'])(?P<eq_>VALUE_eq_{0,512})
  | (?P<uv>VALUE_uv{1,512})
)
)
"""
# One character (or escape) of each kind of value. The regex reads at most 512 of them, so a
# text full of key words stays linear; a longer value is read to its end once it is redacted.
_VALUE_CHAR = {
    "dq": r"""(?:[^"\\\r\n]|\\[^\r\n])""",
    "sq": r"""(?:[^'\\\r\n]|\\[^\r\n])""",
    "bq": r"""[^`\\\r\n]""",
    "eq_": r"""[^"'\\\r\n]""",
    "uv": r"""[^\s"'`,;&<>(){}\[\]\\]""",
}
for _group, _char in _VALUE_CHAR.items():
    _AFTER_KEY = _AFTER_KEY.replace(f"VALUE_{_group}{{", _char + "{")
_VALUE_REST = {group: re.compile(char + "*") for group, char in _VALUE_CHAR.items()}
_KEY_FAMILY = (
    r"(?i:(?<=apikey)|(?<=api_key)|(?<=api-key)|(?<=accesskey)|(?<=access_key)|(?<=access-key)"
    r"|(?<=secretkey)|(?<=secret_key)|(?<=secret-key)|(?<=privatekey)|(?<=private_key)"
    r"|(?<=private-key))"
)
_KINDS = {"w_token": "token", "w_key": "secret", "w_password": "password", "w_secret": "secret"}
_QUOTED_GROUPS = ("dq", "sq", "bq", "eq_")
_KEY_CHARS_REVERSED = re.compile(r"[A-Za-z0-9_.$-]*")
# `key: value` counts as a whole line when the key starts a line (after indentation or a YAML
# `- `), or a quoted string as in `curl -H "X-Api-Key: v"`; read backwards from the key.
_LINE_START_REVERSED = re.compile(r"[ \t]*(?:-[ \t]*)?(?:\n|\r|n\\|\Z)|[\"']")
_LINE_END = re.compile(r"(?:[ \t]+#.*)?[ \t]*(?:\r|\n|\\[rn\"']|[\"']|\Z)")
_CODE_CHAIN = re.compile(r"[-+*&!~]*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\+\+|--)?")
_DOTTED = re.compile(r"[A-Za-z_$]+(?:\.[A-Za-z_$]+)+")  # `self.token`; digits are rare in code
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"[-+]?\d[\w.]*")
_METAVAR = re.compile(r"[A-Z]+(?:[_-][A-Z]+)*")
_PASCAL = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]*)*")
_TYPE_NAMES = frozenset(
    {"str", "string", "bytes", "int", "integer", "number", "bool", "boolean", "any", "object"}
    | {"unknown", "optional", "secretstr", "secretbytes", "text", "char", "varchar"}
)


def _key_value(text: str, m: re.Match[str]) -> _Span | None:
    kind = next(k for g, k in _KINDS.items() if g in m.re.groupindex and m[g] is not None)
    group = next((g for g in _QUOTED_GROUPS if m[g] is not None), "uv")
    start, end = m.span(group)
    rest = _VALUE_REST[group].match(text, end)
    if rest is not None and rest.end() > end:  # past the regex's 512: a blob, not code
        end = rest.end()
        return None if _placeholder(text[start:end]) else (start, end, _mark(kind))
    value = text[start:end]
    if _placeholder(value):
        return None
    if kind != "password" and (len(value) < 8 or (kind == "token" and _has_space(value))):
        return None
    lead = text[max(0, m.start() - 80) : m.start()][::-1]
    key_len = _KEY_CHARS_REVERSED.match(lead)
    key_start = m.start() - (key_len.end() if key_len else 0)
    if text[key_start - 1 : key_start + 1] in ("\\n", "\\r", "\\t"):
        key_start += 1  # `\n` of a JSON-encoded text, not part of the key
    key = text[key_start : m.start(group)].lower()
    if kind == "password" and key.lstrip("-$").startswith(("pwd", "oldpwd")):
        return None  # the shell's working directory
    if group == "uv":
        if not _literal_unquoted(text, m, key, key_start, value, end):
            return None
    elif m["kq"] is None and not _literal_quoted(text, m, group, key_start, value):
        return None
    return (start, end, _mark(kind))


def _has_space(value: str) -> bool:
    return any(c.isspace() for c in value)


def _literal_quoted(text: str, m: re.Match[str], group: str, key_start: int, value: str) -> bool:
    """A quote after an unquoted key may close the string the key is in: `"Password: " + pw`."""
    quote = m[group + "_"]
    if key_start > 0 and text[key_start - 1] == quote:
        return False
    if value[:1].isspace() or value[:1] in (",", ";", ")", "]", "}", "+", "%", "."):
        return False
    return not (group == "bq" and _has_space(value))  # a shell command or a template


def _literal_unquoted(
    text: str, m: re.Match[str], key: str, key_start: int, value: str, end: int
) -> bool:
    """Whether an unquoted value is a literal rather than code (see the module docstring)."""
    if m["flag"] is not None:
        return key.startswith("--") and value[0] != "-" and not _METAVAR.fullmatch(value)
    if m["kq"] is not None or m["ann"] is not None:
        return False  # `"token": tok`, JSON numbers and null
    after = text[end : end + 1]
    if after in ("(", "[") or _DOTTED.fullmatch(value):
        return False  # a call, an index, an attribute
    if m["eq"] is not None:
        return not (after in (",", ")", "}", "]") and _IDENTIFIER.fullmatch(value))
    if m["sp"] is not None:  # code, unless letters and digits mixed: `password = hunter2` (INI)
        if _IDENTIFIER.fullmatch(value) and any(c.isdigit() for c in value):
            return True
        return not (_CODE_CHAIN.fullmatch(value) or _NUMBER.fullmatch(value))
    # `key: value`: only as a whole line, and not a type annotation.
    lead = text[max(0, key_start - 200) : key_start][::-1]
    line = _LINE_START_REVERSED.match(lead)
    if line is None or (line.end() == len(lead) and key_start > 200):
        return False  # `\Z` matched the end of the window, not the start of the text
    if _LINE_END.match(text, end) is None:
        return False
    return value.lower() not in _TYPE_NAMES and not _PASCAL.fullmatch(value)


def _key_rule(anchor_and_words: str) -> re.Pattern[str]:
    return re.compile(anchor_and_words + _AFTER_KEY, re.VERBOSE)


# --- The rules ---------------------------------------------------------------------------------


def _dispatch(*handlers: tuple[str, _Handler]) -> _Handler:
    """Call the handler of the first named group that matched."""

    def handle(text: str, m: re.Match[str]) -> _Span | None:
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
    r"|e(?:n(?<=[Tt]oken)(?P<w_token>)|y" + _KEY_FAMILY + r"(?P<w_key>))" + _AFTER_KEY + ")",
    re.VERBOSE,
)
_K_UPPER = re.compile(
    r"K(?:IA(?<=AKIA)" + _token_start(4, "A-Za-z0-9") + r"(?P<aws>[A-Z0-9]{16})(?![A-Za-z0-9])"
    r"|EY(?<=PRIVATE\ KEY)(?P<pem>)"
    r"|(?:EN(?<=TOKEN)(?P<w_token>)|(?:EY|ey)" + _KEY_FAMILY + r"(?P<w_key>))" + _AFTER_KEY + ")",
    re.VERBOSE,
)
_S_UPPER = re.compile(
    r"S(?:IA(?<=ASIA)" + _token_start(4, "A-Za-z0-9") + r"(?P<aws>[A-Z0-9]{16})(?![A-Za-z0-9])"
    r"|ECRET(?P<w_secret>)" + _AFTER_KEY + ")",
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
_Rule = tuple[str, bool, re.Pattern[str], _Handler]


def _rule(pattern: re.Pattern[str], handler: _Handler, gate: str = "") -> _Rule:
    letter = gate or pattern.pattern[0]
    return (letter, pattern.pattern.startswith(letter), pattern, handler)


# Spans of different rules may overlap (`API_KEY=sk-...`, `Bearer eyJ...`): the union is redacted.
_GENERIC = frozenset(_mark(kind) for kind in ("password", "token", "secret", "bearer"))
_RULES: tuple[_Rule, ...] = (
    _rule(
        _K_LOWER,
        _dispatch(
            ("sk", _token_span("api-key", 1, "sk")),
            ("stripe", _token_span("api-key", 1, "stripe")),
            ("w_token", _key_value),
            ("w_key", _key_value),
        ),
    ),
    _rule(
        _K_UPPER,
        _dispatch(
            ("aws", _token_span("aws-key", 1)),
            ("pem", _private_key),
            ("w_token", _key_value),
            ("w_key", _key_value),
        ),
    ),
    _rule(_key_rule(_PASSWORD_LOWER), _key_value),
    _rule(_key_rule(_PASSWORD_UPPER), _key_value),
    _rule(_key_rule(_SECRET_LOWER), _key_value),
    _rule(_S_UPPER, _dispatch(("aws", _token_span("aws-key", 1)), ("w_secret", _key_value))),
    _rule(_Z, _dispatch(("google", _token_span("google-key", 2)), ("tok", _bearer))),
    _rule(_JWT, _token_span("jwt", 2)),
    _rule(_GITHUB, _github),
    _rule(_SLACK, _slack),
    _rule(_BEARER, _bearer),
    _rule(_URL, _url_credentials, gate="@"),
)


def redact(text: str) -> str:
    """Return `text` with each secret replaced by `[redacted:KIND]`."""
    spans: list[_Span] = []
    for letter, starts_with_letter, pattern, handler in _RULES:
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
            if replacement in _GENERIC:
                replacement = r
            continue
        parts += (text[last:start], replacement)
        last, start, end, replacement = end, s, e, r
    parts += (text[last:start], replacement, text[end:])
    return "".join(parts)
