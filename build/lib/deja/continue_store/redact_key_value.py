"""The key/value rule of redaction (`DB_PASSWORD=…`, `"token": "…"`, `--api-key …`) and the
placeholder test every rule shares: what is a value to redact and what is code or a hint.

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

# (start, end, replacement) of one redaction.
Span = tuple[int, int, str]


def mark(kind: str) -> str:
    return f"[redacted:{kind}]"


# --- Placeholders ------------------------------------------------------------------------------

_NULLISH = frozenset({"none", "null", "nil", "undefined", "true", "false", "empty", "string"})
_MASK_CHARS = frozenset("*x.•…-_#?")
_CREDENTIAL_WORDS = ("token", "secret", "passw", "apikey", "accesskey", "privatekey")
_PLACEHOLDER_WORDS = ("your", "placeholder", "changeme", "redacted")


def placeholder(value: str) -> bool:
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


# --- key = value assignments -------------------------------------------------------------------

# Everything after the key word. Separators, in order: quoted key (JSON, dicts), annotation
# (`k: str = "v"`), `K=v`, spaced `k = v` / `:=` / `=>`, `k: v`, `--k v`, `k "v"`. Then the value.
AFTER_KEY = r"""
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
    AFTER_KEY = AFTER_KEY.replace(f"VALUE_{_group}{{", _char + "{")
_VALUE_REST = {group: re.compile(char + "*") for group, char in _VALUE_CHAR.items()}
KEY_FAMILY = (
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


def key_value(text: str, m: re.Match[str]) -> Span | None:
    kind = next(k for g, k in _KINDS.items() if g in m.re.groupindex and m[g] is not None)
    group = next((g for g in _QUOTED_GROUPS if m[g] is not None), "uv")
    start, end = m.span(group)
    rest = _VALUE_REST[group].match(text, end)
    if rest is not None and rest.end() > end:  # past the regex's 512: a blob, not code
        end = rest.end()
        return None if placeholder(text[start:end]) else (start, end, mark(kind))
    value = text[start:end]
    if placeholder(value):
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
    return (start, end, mark(kind))


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


def key_rule(anchor_and_words: str) -> re.Pattern[str]:
    return re.compile(anchor_and_words + AFTER_KEY, re.VERBOSE)
