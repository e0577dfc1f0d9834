"""Deterministic generator of a realistic Continue session store, for benchmarks.

    python bench/make_store.py OUT_DIR --bytes 1G [--seed N] [--workers N]

Writes, under OUT_DIR:

- ``sessions/<uuid>.json``: one document per session, formatted as Continue's
  ``JSON.stringify(session, undefined, 2)`` (2-space indent, no trailing newline), keys in
  ``HistoryManager.save`` order (sessionId, title, workspaceDirectory, history, then
  mode/chatModelTitle for the IDE or usage for the CLI);
- ``sessions/sessions.json``: the list, in creation order;
- ``needles.json``: the planted search needles and the ids of the sessions holding each, plus a
  few common queries with their exact (case-insensitive substring) hit sessions.

Session files are generated until their total size reaches the target. The same seed and size
give byte-identical files with identical mtimes (dateCreated plus the session's activity time).

Shapes follow /work/shared/reference/continue-store.md and continue-source-notes.md:

- IDE sessions (~55%): ``file://`` URI workspaces (a few Windows ``file:///c%3A/...``), user
  content as parts arrays (sometimes with an inline base64 ``imageUrl`` part), ``message.id``
  uuids, ``contextItems`` holding whole files, TipTap ``editorState`` docs, a ``promptLogs``
  entry on every assistant item (the full rendered prompt, pruned to the model's context
  window: the main size driver, quadratic until the window is full), ``role:"tool"`` items
  duplicating each tool output, ``thinking`` items, ``mode`` and ``chatModelTitle``.
- CLI sessions (~45%): plain-path workspaces, string user content with ``editorState`` equal
  to it, no message ids, top-level ``usage``, tool results only in ``toolCallStates[].output``,
  arguments stored three times; some sessions compacted (history starts at a summary item).

Also, at low rates, what real stores show: ``"[object Object]"`` and placeholder titles, an
empty ``workspaceDirectory``, ISO ``dateCreated`` on old CLI sessions (without
``messageCount``), session files missing from ``sessions.json`` (0.5%, never holding a
needle), tool calls left ``generated``/``calling`` by a save mid-turn, non-destructive IDE
compaction.

``needles.json``::

    {"seed": 1, "target_bytes": N, "sessions_total": N,
     "match": "case-insensitive substring of the session file",
     "needles": [{"query": "kestrel_harmonics", "where": "path", "frequency": "unique",
                  "sessions": ["<uuid>", ...]}, ...],
     "common":  [{"query": "parse_config", "sessions": [...]}, ...]}

``where`` is the slot the needle was planted in (user, assistant, command, output, stderr,
path, edit, thinking, summary); ``frequency`` is unique (1 session), few (5) or rate (~2% or
~10% of sessions). Each ``sessions`` list is exact for that match rule (``sessions.json``
excluded) and is in creation order. Fixed-count needles whose session the store never
reached (tiny targets) are left out.

``--shape cli`` gives the second, CLI-heavy shape: CLI sessions only (so no ``promptLogs``),
long Bash outputs, mostly Read/Edit/Write/Bash calls and more rounds of them, code in context
items; the same needles (but ``thinking``, which only IDE sessions hold). Deterministic by seed
as the default shape, which it leaves byte for byte as it was.

Importable: ``make_store(out, target_bytes, seed=1, shape="default") -> StoreStats``.
"""

from __future__ import annotations

import argparse
import base64
import math
import multiprocessing
import os
import random
import re
import string
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Json = Any


def _load_dumpers() -> tuple[Callable[[Json], bytes], Callable[[Json], str]]:
    """(pretty: JSON.stringify(x, undefined, 2) as bytes, compact: JSON.stringify(x))."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a project dependency
        import json

        # With an indent, json's separators are (",", ": "): the same bytes as orjson and JS.
        def pretty_json(obj: Json) -> bytes:
            return json.dumps(obj, indent=2, ensure_ascii=False).encode()

        def compact_json(obj: Json) -> str:
            return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)

        return pretty_json, compact_json

    def pretty_orjson(obj: Json) -> bytes:
        return orjson.dumps(obj, option=orjson.OPT_INDENT_2)

    def compact_orjson(obj: Json) -> str:
        return orjson.dumps(obj).decode()

    return pretty_orjson, compact_orjson


_pretty, _compact = _load_dumpers()

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

# Sessions are laid out between these instants (before this machine's clock, so tools that
# distrust future timestamps stay quiet). CLI builds before 2025-08-26 wrote ISO dates.
_T_START_MS = 1751328000000  # 2025-07-01T00:00:00Z
_T_END_MS = 1780272000000  # 2026-06-01T00:00:00Z
_ISO_CUTOFF_MS = 1756166400000  # 2025-08-26T00:00:00Z

_IDE_SHARE = 0.55
# Per-kind session size targets: lognormal (median, sigma), clamped. Long-tailed on purpose.
_IDE_SIZE = (150_000.0, 1.55, 4_000, 48_000_000)
_CLI_SIZE = (40_000.0, 1.35, 2_000, 12_000_000)
# A session ends on the exchange that crosses its target: files come out ~1.35x the target.
_OVERSHOOT = 1.35
# Rough mean session size used only to spread dates and needles before sizes are known.
_MEAN_SESSION_BYTES = 330_000
# The second store shape (`--shape cli`): CLI sessions only (no promptLogs), long Bash
# outputs, many Read/Edit/Write calls, code in context items: more indexable text per byte.
SHAPES = ("default", "cli")
_HEAVY_SIZE = (90_000.0, 1.3, 4_000, 12_000_000)
_HEAVY_MEAN_BYTES = 160_000


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_VERBS = _words(
    """
    parse load save fetch validate render compute build resolve normalize serialize handle init
    update create delete merge flush retry sync index search encode decode format dispatch
    register schedule apply collect emit read write open close lookup refresh invalidate migrate
    compile extract filter reduce split hash sign verify authorize enqueue drain throttle
    paginate
    """
)
_NOUNS = _words(
    """
    config session user token cache request response handler index query record payload schema
    event buffer path store client server worker queue job manifest plugin router middleware
    migration metrics logger snapshot chunk batch order invoice account profile message thread
    channel stream socket connection pool transaction ledger report template widget layout
    component state context hook reducer action selector model tensor dataset pipeline feature
    embedding vector shard replica lease lock timer deadline webhook tenant permission role
    cursor offset header
    """
)
_CLASS_SUFFIXES = _words(
    """
    Parser Manager Service Store Client Handler Factory Builder Registry Error Config Repository
    Controller Provider Adapter Cache
    """
)
_EXCEPTIONS = _words(
    """
    KeyError ValueError OSError TimeoutError RuntimeError TypeError
    """
)
_TODOS = (
    "handle the empty case",
    "drop this once the v2 API ships",
    "make the timeout configurable",
    "this allocates on every call",
    "race with the background flush",
    "needs a test",
    "remove after the migration",
    "pagination is off by one here",
)
# ~20 projects: (name, language). Identifier style and tooling follow the language.
_PROJECTS: tuple[tuple[str, str], ...] = tuple(
    (w.split(":")[0], w.split(":")[1])
    for w in _words(
        """
    api-gateway:go billing-service:python web-dashboard:typescript ml-pipeline:python
    search-indexer:rust job-scheduler:go mobile-app:typescript data-etl:python auth-service:go
    cli-tools:rust docs-site:typescript chat-bot:python payment-worker:go analytics-api:python
    k8s-operator:go shop-frontend:typescript game-engine:rust notes-sync:typescript
    infra-scripts:python feature-flags:rust
    """
    )
)
# Heavier use of a few projects, as people have a main project or two.
_PROJECT_WEIGHTS = tuple(1.0 / (1 + i) ** 0.8 for i in range(len(_PROJECTS)))
_EXT = {"python": "py", "typescript": "ts", "go": "go", "rust": "rs"}
_COMMENT = {"python": "#", "typescript": "//", "go": "//", "rust": "//"}

_IDE_MODELS: tuple[tuple[str, str, int, bool, str], ...] = (
    # (chatModelTitle, provider, context chars kept in a prompt, uses thinking, id style)
    ("Claude Sonnet 4.5", "anthropic", 600_000, True, "toolu"),
    ("Claude Opus 4", "anthropic", 600_000, True, "toolu"),
    ("GPT-4.1", "openai", 450_000, False, "call"),
    ("GPT-5", "openai", 450_000, False, "call"),
    ("Qwen2.5-Coder 32B", "ollama", 110_000, False, "call"),
    ("DeepSeek R1 14B", "ollama", 110_000, False, "call"),
)
_IDE_MODEL_WEIGHTS = (30, 10, 20, 15, 15, 10)

# Needles: (query, where, how many, rate). `how many` > 0 places it in that many sessions,
# else each session gets it with probability `rate`. Queries hold no JSON-escaped characters,
# so a case-insensitive byte search over a file finds exactly the sessions listed.
_NEEDLES: tuple[tuple[str, str, int, float], ...] = (
    ("quokka ledger reconciliation", "user", 1, 0.0),
    ("zanthoxylum_retry_budget", "assistant", 1, 0.0),
    ("migrate_vellichor_vault", "command", 1, 0.0),
    ("EPHEMERON_QUASAR_8812", "output", 1, 0.0),
    ("kestrel_harmonics", "path", 1, 0.0),
    ("bramblewick_checksum", "edit", 1, 0.0),
    ("obsidian heron invariant", "thinking", 1, 0.0),
    ("tangerine sluice protocol", "summary", 1, 0.0),
    ("glimmerpane_socket_refused", "stderr", 1, 0.0),
    ("marmoset cache never warms", "user", 5, 0.0),
    ("flibbertigibbet", "command", 5, 0.0),
    ("ERR_SNORKELWAVE_TIMEOUT", "output", 5, 0.0),
    ("wobblegate", "path", 5, 0.0),
    ("loquat_shard_allocator", "assistant", 5, 0.0),
    ("FrobnicateWidgetFactory", "edit", 5, 0.0),
    ("pelican_config_loader", "user", 0, 0.02),
    ("teapotify", "output", 0, 0.02),
    ("narwhal-api", "command", 0, 0.02),
    ("useJellybeanReducer", "assistant", 0, 0.02),
    ("xylophone_mutex", "output", 0, 0.10),
)
# Everyday queries: their hit sets are measured, not planted.
_TOOL_SLOTS = frozenset({"command", "output", "stderr", "path", "edit"})
_COMMON_QUERIES = (
    "parse_config",
    "parseConfig",
    "Traceback (most recent call last)",
    "ECONNREFUSED",
    "git status",
    "npm run build",
    "TypeError",
    "exit code 1",
)

# --------------------------------------------------------------------------------------------
# Text corpus: built once per seed, shared by every session (fork keeps it copy-on-write)
# --------------------------------------------------------------------------------------------


def _snake(verb: str, noun: str) -> str:
    return f"{verb}_{noun}"


def _camel(verb: str, noun: str) -> str:
    return verb + noun[:1].upper() + noun[1:]


def _pascal(*words: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


def _fill(template: str, values: dict[str, str]) -> str:
    return string.Template(template).substitute(values)


_PY_STMTS = (
    'if $a is None:\n    raise ValueError("$noun must not be empty")',
    "$x = $fn2($a)",
    '$x = $a.get("$key", $n)',
    "for $it in $a:\n    $x.append($fn2($it))",
    'logger.debug("$verb %s for %s", "$noun", $a)',
    "try:\n    $x = $fn2($a, timeout=$n)\nexcept $exc as exc:\n"
    '    raise ${cls}Error(f"failed to $verb $noun: {exc}") from exc',
    "$x = [$it for $it in $a if $it.$attr]",
    "# TODO: $todo",
    "if not $x:\n    return None",
    '$x = {"$key": $a, "$attr": $n}',
    'with open($a, encoding="utf-8") as fh:\n    $x = json.load(fh)',
    'assert $x is not None, "$noun missing"',
    "$x = sorted($a, key=lambda $it: $it.$attr)[:$n]",
    'if len($a) > $n:\n    logger.warning("$noun overflow: %d", len($a))\n    $a = $a[:$n]',
)
_TS_STMTS = (
    'if (!$a) {\n  throw new Error("$noun must not be empty");\n}',
    "const $x = await $fn2($a);",
    'const $x = $a["$key"] ?? $n;',
    "for (const $it of $a) {\n  $x.push($fn2($it));\n}",
    'console.debug("$verb $noun", $a);',
    "try {\n  $x = await $fn2($a, { timeout: $n });\n} catch (err) {\n"
    "  throw new ${cls}Error(`failed to $verb $noun: $${String(err)}`);\n}",
    "const $x = $a.filter(($it) => $it.$attr);",
    "// TODO: $todo",
    "if ($x === undefined) {\n  return null;\n}",
    "const $x = { $key: $a, $attr: $n };",
    'const $x = JSON.parse(await fs.readFile($a, "utf8"));',
    "$x.set($a.$attr, $n);",
    "const $x = useMemo(() => $fn2($a), [$a]);",
)
_GO_STMTS = (
    'if $a == nil {\n\treturn nil, errors.New("$noun must not be empty")\n}',
    "$x, err := $fn2(ctx, $a)\nif err != nil {\n"
    '\treturn nil, fmt.Errorf("$verb $noun: %w", err)\n}',
    '$x := $a["$key"]',
    "for _, $it := range $a {\n\t$x = append($x, $fn2($it))\n}",
    'log.Printf("$verb $noun: %v", $a)',
    "// TODO: $todo",
    "if len($x) == 0 {\n\treturn nil, nil\n}",
    "ctx, cancel := context.WithTimeout(ctx, $n*time.Millisecond)\ndefer cancel()",
    "s.mu.Lock()\ndefer s.mu.Unlock()",
    "$x := make(map[string]int, $n)",
    "if err := json.NewDecoder(r.Body).Decode(&$x); err != nil {\n"
    "\thttp.Error(w, err.Error(), http.StatusBadRequest)\n\treturn nil, err\n}",
)
_RS_STMTS = (
    'let $x = $a.get(&$n).ok_or_else(|| anyhow!("missing $noun"))?;',
    "let $x = $fn2(&$a)?;",
    "for $it in $a.iter() {\n    $x.push($fn2($it)?);\n}",
    'tracing::debug!(?$a, "$verb $noun");',
    "// TODO: $todo",
    "if $x.is_empty() {\n    return Ok(None);\n}",
    "let mut $x = Vec::with_capacity($n);",
    "let $x: Vec<_> = $a.iter().filter(|$it| $it.$attr).collect();",
    "match $fn2(&$a) {\n    Ok(v) => $x.insert(v),\n"
    '    Err(e) => return Err(e).context("$verb $noun"),\n};',
    'let guard = self.$attr.lock().expect("$noun lock poisoned");',
)
_STMTS = {"python": _PY_STMTS, "typescript": _TS_STMTS, "go": _GO_STMTS, "rust": _RS_STMTS}


@dataclass(slots=True)
class _Project:
    name: str
    lang: str
    nouns: list[str]
    idents: list[str]
    classes: list[str]
    files: list[tuple[str, str]]
    dirs: list[str]
    tests: list[str]

    @property
    def ext(self) -> str:
        return _EXT[self.lang]


def _ident(rng: random.Random, lang: str, verbs: Sequence[str], nouns: Sequence[str]) -> str:
    v, n = rng.choice(verbs), rng.choice(nouns)
    if lang == "typescript":
        return _camel(v, n)
    if lang == "go":
        return _camel(v, n) if rng.random() < 0.6 else _pascal(v, n)
    return _snake(v, n)


def _code_file(rng: random.Random, proj: _Project, module: str, n_funcs: int) -> str:
    """A source file in the project's language: imports, a constant, then functions."""
    lang = proj.lang
    stmts = _STMTS[lang]
    out: list[str] = []
    cls = rng.choice(proj.classes)
    if lang == "python":
        out += [
            f'"""{module.replace("_", " ").capitalize()} helpers for {proj.name}."""',
            "",
            "from __future__ import annotations",
            "",
            "import json",
            "import logging",
            f"from {proj.name.replace('-', '_')}.{rng.choice(proj.nouns)} import "
            f"{rng.choice(proj.classes)}, {rng.choice(proj.idents)}",
            "",
            "logger = logging.getLogger(__name__)",
            "",
            f"{rng.choice(proj.nouns).upper()}_LIMIT = {rng.randrange(8, 5000)}",
            "",
        ]
    elif lang == "typescript":
        out += [
            f"import {{ {rng.choice(proj.classes)}, {rng.choice(proj.idents)} }} from "
            f'"./{rng.choice(proj.nouns)}";',
            'import * as fs from "node:fs/promises";',
            "",
            f"export const {rng.choice(proj.nouns).upper()}_LIMIT = {rng.randrange(8, 5000)};",
            "",
        ]
    elif lang == "go":
        out += [
            f"package {module}",
            "",
            "import (",
            '\t"context"',
            '\t"encoding/json"',
            '\t"errors"',
            '\t"fmt"',
            '\t"log"',
            '\t"net/http"',
            '\t"time"',
            ")",
            "",
            f"const {_pascal(rng.choice(proj.nouns))}Limit = {rng.randrange(8, 5000)}",
            "",
        ]
    else:
        out += [
            "use anyhow::{anyhow, Context, Result};",
            "use std::collections::HashMap;",
            "",
            f"pub const {rng.choice(proj.nouns).upper()}_LIMIT: usize = {rng.randrange(8, 5000)};",
            "",
        ]
    for _ in range(n_funcs):
        noun = rng.choice(proj.nouns)
        values = {
            "fn": rng.choice(proj.idents),
            "fn2": rng.choice(proj.idents),
            "a": rng.choice(proj.nouns),
            "x": rng.choice(proj.nouns) + rng.choice(("s", "", "_map", "_list")),
            "it": rng.choice(("item", "entry", "row", "node", "rec")),
            "key": rng.choice(proj.nouns),
            "attr": rng.choice(proj.nouns),
            "n": str(rng.randrange(1, 10_000)),
            "noun": noun,
            "verb": rng.choice(_VERBS),
            "exc": rng.choice(_EXCEPTIONS),
            "cls": cls.removesuffix("Error"),
            "todo": rng.choice(_TODOS),
        }
        if lang == "typescript":
            values["x"] = _camel(values["x"].replace("_", ""), "")
        body = [_fill(rng.choice(stmts), values) for _ in range(rng.randrange(2, 9))]
        fn, a, t = values["fn"], values["a"], rng.choice(proj.classes)
        ret = rng.choice(proj.classes)
        if lang == "python":
            head = [
                f"def {fn}({a}: {t}, *, strict: bool = False) -> {ret} | None:",
                f'    """{rng.choice(_VERBS).capitalize()} the {noun} for {a}."""',
            ]
            tail = [f"    return {values['x']}", ""]
            ind = "    "
        elif lang == "typescript":
            head = [f"export async function {fn}({a}: {t}): Promise<{rng.choice(proj.classes)}> {{"]
            tail = [f"  return {values['x']};", "}", ""]
            ind = "  "
        elif lang == "go":
            head = [
                f"// {fn} {rng.choice(_VERBS)}s the {noun} for {a}.",
                f"func (s *{cls}) {fn}(ctx context.Context, {a} *{t}) (*{ret}, error) {{",
            ]
            tail = [f"\treturn {values['x']}, nil", "}", ""]
            ind = "\t"
        else:
            head = [
                f"/// {rng.choice(_VERBS).capitalize()} the {noun} for `{a}`.",
                f"pub fn {fn}(&self, {a}: &{t}) -> Result<Option<{ret}>> {{",
            ]
            tail = [f"    Ok(Some({values['x']}))", "}", ""]
            ind = "    "
        out += head
        for stmt in body:
            out += [ind + line for line in stmt.split("\n")]
        out += tail
    return "\n".join(out)


def _build_project(rng: random.Random, name: str, lang: str) -> _Project:
    nouns = rng.sample(_NOUNS, 28)
    verbs = rng.sample(_VERBS, 24)
    idents = sorted({_ident(rng, lang, verbs, nouns) for _ in range(90)})
    # The everyday queries must have realistic hit rates, so every project knows them.
    idents += ["parse_config" if lang in ("python", "rust") else "parseConfig", "load_settings"]
    classes = sorted({_pascal(rng.choice(nouns), rng.choice(_CLASS_SUFFIXES)) for _ in range(30)})
    proj = _Project(name, lang, nouns, idents, classes, [], [], [])
    ext = _EXT[lang]
    if lang == "python":
        pkg = name.replace("-", "_")
        proj.dirs = [f"src/{pkg}", f"src/{pkg}/{nouns[0]}", "tests", "scripts"]
    elif lang == "typescript":
        proj.dirs = ["src", "src/components", "src/lib", "src/hooks", "test"]
    elif lang == "go":
        proj.dirs = [f"internal/{nouns[0]}", f"internal/{nouns[1]}", f"cmd/{name}", "pkg/api"]
    else:
        proj.dirs = ["src", f"src/{nouns[0]}", "tests", "benches"]
    for i in range(rng.randrange(28, 60)):
        module = nouns[i % len(nouns)] + ("" if i < len(nouns) else f"_{rng.choice(verbs)}")
        d = rng.choice(proj.dirs)
        if lang == "typescript" and d.startswith("src/components"):
            fname = f"{_pascal(module.replace('_', ' ').split()[0])}View.tsx"
        else:
            fname = f"{module}.{ext}"
        # Most files are small, a few are big modules.
        n_funcs = max(2, int(rng.lognormvariate(math.log(9), 0.8)))
        proj.files.append((f"{d}/{fname}", _code_file(rng, proj, module, min(n_funcs, 140))))
    proj.tests = sorted(
        {
            f"test_{rng.choice(proj.idents)}"
            if lang != "go"
            else f"Test{_pascal(rng.choice(verbs), rng.choice(nouns))}"
            for _ in range(25)
        }
    )
    return proj


@dataclass(slots=True)
class _Corpus:
    projects: list[_Project]
    images: list[str]
    signatures: list[str]
    system_messages: dict[str, str]


_CORPUS: _Corpus | None = None
_CORPUS_SEED: int | None = None


def _corpus(seed: int) -> _Corpus:
    global _CORPUS, _CORPUS_SEED
    if _CORPUS is None or seed != _CORPUS_SEED:
        rng = random.Random(f"corpus:{seed}")
        projects = [_build_project(rng, n, lang) for n, lang in _PROJECTS]
        # Screenshots: high-entropy base64 like real PNGs, a few KB to ~100 KB each.
        images = []
        for _ in range(48):
            size = int(math.exp(rng.uniform(math.log(3_000), math.log(75_000))))
            raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(size)
            images.append("data:image/png;base64," + base64.b64encode(raw).decode())
        sigs = [
            base64.b64encode(rng.randbytes(rng.randrange(150, 400))).decode() for _ in range(64)
        ]
        system = {mode: _system_message(rng, mode) for mode in ("agent", "chat", "plan")}
        _CORPUS, _CORPUS_SEED = _Corpus(projects, images, sigs, system), seed
    return _CORPUS


def _system_message(rng: random.Random, mode: str) -> str:
    rules = [
        "Always include the language and file name in the info string when you write code blocks.",
        "When editing an existing file, show only the changed lines and use "
        "`// ... existing code ...` comments for the parts left unchanged.",
        "Prefer small, reviewable changes. Run the tests after every change.",
        "Do not invent APIs: read the code first with the read_file tool.",
        "Never print secrets, tokens or credentials from the environment.",
        "Use ripgrep (grep_search) before reading whole directories.",
    ]
    head = {
        "agent": "You are in agent mode. You can call tools to read and edit files and run "
        "terminal commands in the user's workspace.",
        "chat": "You are in chat mode. You cannot edit files: describe changes as code blocks "
        "the user can apply.",
        "plan": "You are in plan mode. You may only use read-only tools. Produce a step-by-step "
        "plan; do not modify files.",
    }[mode]
    body = [head, "", "<important_rules>"] + [f"  {r}" for r in rules] + ["</important_rules>"]
    for _ in range(rng.randrange(6, 14)):
        v, n = rng.choice(_VERBS), rng.choice(_NOUNS)
        body.append(f"- When asked to {v} a {n}, check the existing {n} handling first.")
    return "\n".join(body)


# --------------------------------------------------------------------------------------------
# Prose
# --------------------------------------------------------------------------------------------

_ERRORS = (
    "KeyError: '$key'",
    "TypeError: Cannot read properties of undefined (reading '$attr')",
    "connect ECONNREFUSED 127.0.0.1:5432",
    "panic: runtime error: index out of range [3] with length 3",
    "error[E0502]: cannot borrow `$x` as mutable because it is also borrowed as immutable",
    "AttributeError: 'NoneType' object has no attribute '$attr'",
    "ModuleNotFoundError: No module named '$noun'",
    "context deadline exceeded while waiting for $noun",
    "401 Unauthorized: token expired",
    "TypeError: $ident is not a function",
    'sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "${noun}s_pkey"',
    "fatal: refusing to merge unrelated histories",
    "RangeError: Maximum call stack size exceeded",
    "ValueError: invalid literal for int() with base 10: '$noun'",
)
# Which of _ERRORS each language produces (git's is everyone's).
_LANG_ERRORS = {
    "python": (0, 5, 6, 7, 8, 10, 11, 13),
    "typescript": (1, 2, 8, 9, 11, 12),
    "go": (2, 3, 7, 8, 11),
    "rust": (4, 7, 8, 11),
}
_USER_PROMPTS = (
    "Why does `$ident` throw `$error`?",
    "Can you add a test for $ident covering the empty $noun case?",
    "Refactor $path so that $ident takes a $cls instead of a raw dict",
    "rename $ident to $ident2 everywhere",
    "what does $ident do? I don't get why it calls $ident2 twice",
    "add logging around the $noun retry loop in $path",
    "$ident is slow on large ${noun}s, can you profile it and fix the hot path?",
    "The build fails with $error, please fix it",
    "explain the difference between $ident and $ident2",
    "Write a migration that adds a `$attr` column to the ${noun}s table",
    "make $ident return early when the $noun is already cached",
    "CI is red on main: $error. Can you take a look?",
    "Review $path and suggest improvements",
    "Implement pagination for the $noun list endpoint",
    "the $noun handler leaks connections under load, find out why",
    "Split $path into smaller modules, it's getting too big",
)
_FOLLOW_UPS = (
    "continue",
    "looks good, commit it",
    "that broke the $noun tests, revert the last change",
    "now do the same for $ident2",
    "can you also update the docs?",
    "run the tests again",
    "why did you change $ident?",
    "ok, and what about the error case?",
    "perfect, thanks",
    "use $cls instead",
    "still failing: $error",
)
_ASSISTANT_SENTENCES = (
    "I'll start by reading `$path` to see how `$ident` is wired up.",
    "The failure comes from `$ident`: it assumes the $noun is always set, but `$ident2` "
    "returns nothing when the $noun2 is empty.",
    "Let me run the tests to confirm the fix.",
    "The root cause is a race between `$ident` and the background $noun flush.",
    "`$cls` already caches the $noun, so the second lookup in `$ident2` is redundant.",
    "I've updated `$path` so that `$ident` validates its input before touching the $noun.",
    "This keeps the public API unchanged; only `$ident2` moves into `$path2`.",
    "The error `$error` means the $noun was never initialised.",
    "There are two call sites of `$ident`: `$path` and `$path2`.",
    "All tests pass now.",
    "I couldn't reproduce the failure locally; it may depend on the $noun data in CI.",
    "Next, I'll add a regression test in `$path2`.",
)
_TITLES = (
    "Fix $error_short in $ident",
    "Refactor $ident",
    "Add tests for $ident",
    "Debug $noun timeout",
    "$Verb $noun $noun2 support",
    "Investigate failing CI on $branch",
    "Rename $ident to $ident2",
    "Speed up $ident",
    "Explain $cls",
    "Paginate $noun list endpoint",
    "$Verb $noun cache",
)
_BRANCHES = ("main", "develop", "feat/$noun-v2", "fix/$noun-timeout", "release/1.4")


class _Filler(dict[str, str]):
    """Lazy template values: each `$name` is drawn once from the project on first use."""

    def __init__(self, rng: random.Random, proj: _Project) -> None:
        super().__init__()
        self.rng = rng
        self.proj = proj

    def __missing__(self, key: str) -> str:
        rng, proj = self.rng, self.proj
        base = key.rstrip("0123456789")
        if base == "ident":
            v = rng.choice(proj.idents)
        elif base == "noun":
            v = rng.choice(proj.nouns)
        elif base == "Verb":
            v = rng.choice(_VERBS).capitalize()
        elif base == "cls":
            v = rng.choice(proj.classes)
        elif base == "path":
            v = rng.choice(proj.files)[0]
        elif base in ("key", "attr", "x"):
            v = rng.choice(proj.nouns)
        elif base == "error":
            v = _fill(_ERRORS[rng.choice(_LANG_ERRORS[proj.lang])], self)
        elif base == "error_short":
            v = self["error"].split(":")[0][:40]
        elif base == "branch":
            v = _fill(rng.choice(_BRANCHES), self)
        else:
            raise KeyError(key)
        self[key] = v
        return v


def _say(rng: random.Random, proj: _Project, templates: Sequence[str]) -> str:
    return _fill(rng.choice(templates), _Filler(rng, proj))


def _snippet(rng: random.Random, proj: _Project, max_lines: int = 30) -> tuple[str, str]:
    """(path, a run of lines) from one of the project's files."""
    path, text = rng.choice(proj.files)
    lines = text.split("\n")
    n = rng.randrange(4, max_lines)
    start = rng.randrange(0, max(1, len(lines) - n))
    return path, "\n".join(lines[start : start + n])


def _assistant_text(rng: random.Random, proj: _Project, long: bool) -> str:
    parts = [_say(rng, proj, _ASSISTANT_SENTENCES) for _ in range(rng.randrange(1, 4))]
    if long:
        if rng.random() < 0.6:
            path, code = _snippet(rng, proj)
            parts.append(f"```{proj.ext} {path}\n{code}\n```")
        parts.append(_say(rng, proj, _ASSISTANT_SENTENCES))
        if rng.random() < 0.5:
            f = _Filler(rng, proj)
            parts.append(
                "\n".join(
                    _fill(
                        f"- `$path{i}`: {rng.choice(_VERBS)} the $noun{i} before $ident{i} runs", f
                    )
                    for i in range(rng.randrange(2, 5))
                )
            )
    return "\n\n".join(parts)


# --------------------------------------------------------------------------------------------
# Terminal commands and their output
# --------------------------------------------------------------------------------------------

_LANG_COMMANDS = {
    "python": (
        "pytest -x tests/test_$noun.py",
        "pytest -q",
        "ruff check src",
        "mypy src",
        "python -m $pkg.$noun --dry-run",
        "uv pip install -e .[dev]",
    ),
    "typescript": (
        "npm run build",
        "npm test -- $noun",
        "npx tsc --noEmit",
        "npx eslint src --fix",
        "pnpm install",
        "node dist/index.js --$noun",
    ),
    "go": (
        "go test ./...",
        "go build ./...",
        "go vet ./...",
        "go run ./cmd/$proj",
        "golangci-lint run ./internal/...",
    ),
    "rust": (
        "cargo build",
        "cargo test $noun",
        "cargo clippy -- -D warnings",
        "cargo run --release -- --input data/$noun.json",
    ),
}
_COMMON_COMMANDS = (
    "git status",
    "git diff --stat",
    "git log --oneline -8",
    "ls -la $dir",
    'rg -n "$ident" $dir',
    "docker compose up -d db",
    "curl -s localhost:8080/healthz",
    "make lint",
    "cat $path",
    "kubectl get pods -n $proj",
    'grep -rn "TODO" $dir',
)


def _command(rng: random.Random, proj: _Project) -> str:
    pool = _LANG_COMMANDS[proj.lang] if rng.random() < 0.6 else _COMMON_COMMANDS
    values = {
        "noun": rng.choice(proj.nouns),
        "pkg": proj.name.replace("-", "_"),
        "proj": proj.name,
        "dir": rng.choice(proj.dirs),
        "ident": rng.choice(proj.idents),
        "path": rng.choice(proj.files)[0],
    }
    return _fill(rng.choice(pool), values)


def _traceback(rng: random.Random, proj: _Project, root: str) -> str:
    f = _Filler(rng, proj)
    if proj.lang == "python":
        frames = []
        for _ in range(rng.randrange(2, 6)):
            path, code = _snippet(rng, proj, 6)
            line = code.strip().split("\n")[0].strip() or "pass"
            frames.append(
                f'  File "{root}/{path}", line {rng.randrange(5, 400)}, in '
                f"{rng.choice(proj.idents)}\n    {line}"
            )
        return (
            "Traceback (most recent call last):\n"
            + "\n".join(frames)
            + "\n"
            + _fill(rng.choice(_ERRORS[:1] + _ERRORS[5:7] + _ERRORS[13:]), f)
        )
    if proj.lang == "typescript":
        frames = [
            f"    at {rng.choice(proj.idents)} ({root}/{rng.choice(proj.files)[0]}:"
            f"{rng.randrange(5, 400)}:{rng.randrange(3, 40)})"
            for _ in range(rng.randrange(2, 7))
        ]
        frames.append(
            "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"
        )
        return (
            _fill(rng.choice(_ERRORS[1:2] + _ERRORS[9:10] + _ERRORS[12:13]), f)
            + "\n"
            + "\n".join(frames)
        )
    if proj.lang == "go":
        frames = []
        for _ in range(rng.randrange(2, 6)):
            frames.append(
                f"github.com/dev/{proj.name}/{rng.choice(proj.dirs)}."
                f"{rng.choice(proj.idents)}(0xc000{rng.randrange(0x1000, 0xFFFF):x})\n"
                f"\t{root}/{rng.choice(proj.files)[0]}:{rng.randrange(5, 400)}"
                f" +0x{rng.randrange(16, 999):x}"
            )
        return (
            "panic: runtime error: invalid memory address or nil pointer dereference\n"
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b1c]\n\n"
            "goroutine 1 [running]:\n" + "\n".join(frames)
        )
    path = rng.choice(proj.files)[0]
    ln = rng.randrange(5, 400)
    x = rng.choice(proj.nouns)
    return (
        f"error[E0382]: borrow of moved value: `{x}`\n  --> {path}:{ln}:13\n   |\n"
        f"{ln - 1:>3} |     let {x} = {rng.choice(proj.idents)}(&self.{x})?;\n"
        f"   |         - move occurs because `{x}` has type `Vec<{rng.choice(proj.classes)}>`\n"
        f"{ln:>3} |     {rng.choice(proj.idents)}({x});\n"
        "   |     ^^^ value borrowed here after move\n\n"
        "error: could not compile due to 1 previous error"
    )


_RULE = "=" * 30


def _test_output(rng: random.Random, proj: _Project, root: str, fail: bool) -> tuple[str, str, int]:
    """What a test runner prints, per language, passing or with one failure."""
    tests = rng.sample(proj.tests, min(len(proj.tests), rng.randrange(3, 14)))
    n = rng.randrange(8, 400)
    secs = f"{rng.uniform(0.5, 30):.2f}s"
    if proj.lang == "python":
        head = (
            f"{_RULE} test session starts {_RULE}\n"
            f"platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0\nrootdir: {root}\n"
            f"configfile: pyproject.toml\ncollected {n} items\n\n"
        )
        body = "\n".join(
            f"tests/test_{rng.choice(proj.nouns)}.py {'.' * rng.randrange(1, 30)}"
            f"{'F' if fail and i == 0 else ''} [{min(99, 7 * (i + 1)):>3}%]"
            for i in range(len(tests))
        )
        if not fail:
            return f"{head}{body}\n\n{_RULE} {n} passed in {secs} {_RULE}", "", 0
        t = tests[0]
        body += (
            f"\n\n{_RULE} FAILURES {_RULE}\n"
            f"{'_' * 20} {t} {'_' * 20}\n\n{_traceback(rng, proj, root)}\n"
            f"{_RULE} short test summary info {_RULE}\n"
            f"FAILED tests/test_{rng.choice(proj.nouns)}.py::{t} - AssertionError\n"
            f"{_RULE} 1 failed, {n - 1} passed in {secs} {_RULE}"
        )
        return head + body, "", 1
    if proj.lang == "go":
        pk = [f"github.com/dev/{proj.name}/{d}" for d in proj.dirs]
        lines = [f"ok  \t{p}\t{rng.uniform(0.01, 3):.3f}s" for p in pk]
        if not fail:
            return "\n".join(lines), "", 0
        where = f"{rng.choice(proj.nouns)}_test.go:{rng.randrange(10, 300)}"
        got = f"got {rng.randrange(9)}, want {rng.randrange(9)}"
        lines.insert(0, f"--- FAIL: {tests[0]} (0.00s)\n    {where}: {got}\nFAIL")
        lines.append(f"FAIL\t{pk[0]}\t0.015s\nFAIL")
        return "\n".join(lines), "", 1
    if proj.lang == "rust":
        lines = [f"running {len(tests)} tests"]
        for i, t in enumerate(tests):
            verdict = "FAILED" if fail and i == 0 else "ok"
            lines.append(f"test {rng.choice(proj.nouns)}::tests::{t} ... {verdict}")
        if not fail:
            lines.append(
                f"\ntest result: ok. {len(tests)} passed; 0 failed; 0 ignored; 0 measured; "
                f"0 filtered out; finished in {rng.uniform(0.01, 3):.2f}s"
            )
            return "\n".join(lines), "", 0
        at = f"src/{rng.choice(proj.nouns)}.rs:{rng.randrange(10, 300)}:9"
        lines += [
            "",
            "failures:",
            "",
            f"---- {tests[0]} stdout ----",
            f"thread '{tests[0]}' panicked at {at}:",
            "assertion `left == right` failed\n  left: 3\n right: 4",
            "",
            f"test result: FAILED. {len(tests) - 1} passed; 1 failed; 0 ignored",
        ]
        return "\n".join(lines), "error: test failed, to rerun pass `--lib`", 101
    lines = [
        f"PASS src/{rng.choice(proj.nouns)}.test.ts\n"
        f"  ✓ {t.replace('_', ' ')} ({rng.randrange(1, 90)} ms)"
        for t in tests
    ]
    if not fail:
        return "\n".join(lines) + f"\n\nTests: {len(tests)} passed, {len(tests)} total", "", 0
    lines.append(
        f"FAIL src/{rng.choice(proj.nouns)}.test.ts\n  ● {tests[0]}\n\n"
        "    expect(received).toEqual(expected)\n\n"
        f"{_traceback(rng, proj, root)}\n\nTests: 1 failed, {len(tests) - 1} passed"
    )
    return "\n".join(lines), "", 1


_BUILDS = (
    "npm run build", "npx tsc", "cargo build", "go build", "go vet", "cargo clippy", "mypy",
    "ruff", "golangci", "npx eslint", "make lint",
)  # fmt: skip
_BUILD_OK = (
    "",
    "Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.21s",
    "Success: no issues found in 42 source files",
    "All checks passed!",
)


def _build_output(rng: random.Random, proj: _Project, fail: bool) -> tuple[str, str, int]:
    """A compiler or linter run: quiet on success, a list of diagnostics on failure."""
    if not fail:
        return rng.choice(_BUILD_OK), "", 0
    errs = []
    for _ in range(rng.randrange(1, 8)):
        path = rng.choice(proj.files)[0]
        ln, col = rng.randrange(3, 500), rng.randrange(1, 40)
        attr, cls = rng.choice(proj.nouns), rng.choice(proj.classes)
        if proj.lang == "python":
            errs.append(f'{path}:{ln}:{col}: error: "{cls}" has no attribute "{attr}"')
        elif proj.lang == "typescript":
            errs.append(
                f"{path}({ln},{col}): error TS2339: "
                f"Property '{attr}' does not exist on type '{cls}'."
            )
        elif proj.lang == "go":
            errs.append(f"{path}:{ln}:{col}: undefined: {rng.choice(proj.idents)}")
        else:
            errs.append(
                f"error[E0425]: cannot find value `{attr}` in this scope\n  --> {path}:{ln}:{col}"
            )
    return "", "\n".join(errs) + f"\nFound {len(errs)} errors.", rng.choice((1, 2))


def _git_output(rng: random.Random, proj: _Project, cmd: str) -> str:
    if cmd.startswith("git status"):
        branch = rng.choice(("main", "develop", "feat/" + rng.choice(proj.nouns)))
        changed = "\n".join(
            f"\tmodified:   {rng.choice(proj.files)[0]}" for _ in range(rng.randrange(1, 6))
        )
        return (
            f"On branch {branch}\nChanges not staged for commit:\n"
            '  (use "git add <file>..." to update what will be committed)\n'
            f'{changed}\n\nno changes added to commit (use "git add" and/or "git commit -a")'
        )
    if cmd.startswith("git diff"):
        rows = []
        for _ in range(rng.randrange(1, 8)):
            bar = "+" * rng.randrange(1, 20) + "-" * rng.randrange(0, 9)
            rows.append(f" {rng.choice(proj.files)[0]:<40} | {rng.randrange(1, 80):>3} {bar}")
        ins, dels = rng.randrange(5, 300), rng.randrange(0, 90)
        rows.append(f" {len(rows)} files changed, {ins} insertions(+), {dels} deletions(-)")
        return "\n".join(rows)
    return "\n".join(f"{rng.getrandbits(28):07x} {_say(rng, proj, _TITLES)}" for _ in range(8))


def _files_output(rng: random.Random, proj: _Project, cmd: str, fail: bool) -> tuple[str, int]:
    if cmd.startswith("cat"):
        return rng.choice(proj.files)[1], 0
    if cmd.startswith("ls"):
        rows = []
        for p, _ in rng.sample(proj.files, min(12, len(proj.files))):
            size, day = rng.randrange(100, 90000), rng.randrange(1, 29)
            stamp = f"Mar {day:>2} 10:{rng.randrange(10, 59)}"
            rows.append(f"-rw-r--r-- 1 dev dev {size:>6} {stamp} {p.rsplit('/', 1)[-1]}")
        return "\n".join(rows), 0
    hits = []
    for _ in range(rng.randrange(0 if fail else 1, 12)):
        path, code = _snippet(rng, proj, 5)
        hits.append(f"{path}:{rng.randrange(1, 400)}:{code.split(chr(10))[0]}")
    return "\n".join(hits), (0 if hits else 1)  # grep's 1 = nothing found


def _misc_output(rng: random.Random, proj: _Project) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return f'{{"status":"ok","service":"{proj.name}","uptime_s":{rng.randrange(10, 99999)}}}'
    if kind == 1:
        return (
            f"[+] Running 2/2\n ✔ Container {proj.name}-db-1  Started\n"
            f" ✔ Container {proj.name}-api-1  Started"
        )
    if kind == 2:
        return (
            "NAME                          READY   STATUS    RESTARTS   AGE\n"
            f"{proj.name}-7d9f8b6c5-x2k4q   1/1     Running   0          3d"
        )
    if kind == 3:
        version = f"{rng.randrange(1, 9)}.{rng.randrange(0, 30)}.0"
        return f"Successfully installed {rng.choice(proj.nouns)}-{version}"
    return "done"


def _run(
    rng: random.Random, proj: _Project, cmd: str, root: str, fail: bool
) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for a command, shaped by what the command is."""
    if fail and rng.random() < 0.08:
        return "", f"bash: {cmd.split()[0]}: command not found", 127
    if cmd.startswith(("pytest", "cargo test", "go test", "npm test")):
        return _test_output(rng, proj, root, fail)
    if cmd.startswith(_BUILDS):
        return _build_output(rng, proj, fail)
    if cmd.startswith("git "):
        return _git_output(rng, proj, cmd), "", 0
    if cmd.startswith(("ls", "cat", "rg", "grep")):
        out, code = _files_output(rng, proj, cmd, fail)
        return out, "", code
    if fail:
        tb = _traceback(rng, proj, root)
        return rng.choice(("", f"starting {proj.name}...\n")), tb, rng.choice((1, 1, 1, 2, 137))
    return _misc_output(rng, proj), "", 0


def _diff(path: str, old: str, new: str, start: int) -> str:
    old_lines, new_lines = old.split("\n"), new.split("\n")
    body = [f"-{ln}" for ln in old_lines] + [f"+{ln}" for ln in new_lines]
    return (
        f"--- a/{path}\n+++ b/{path}\n@@ -{start},{len(old_lines)} +{start},{len(new_lines)} @@\n"
        + "\n".join(body)
    )


def _edit_pair(rng: random.Random, proj: _Project, needle: str | None) -> tuple[str, str, str]:
    """(path, old_string, new_string) for a plausible small edit of a project file."""
    path, old = _snippet(rng, proj, 14)
    lines = old.split("\n")
    kind = rng.random()
    if kind < 0.4:
        a, b = rng.choice(proj.idents), rng.choice(proj.idents)
        new = (
            old.replace(a, b) if a in old else old + f"\n{_COMMENT[proj.lang]} {rng.choice(_TODOS)}"
        )
    elif kind < 0.8:
        i = rng.randrange(len(lines))
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        ins = (
            f"{indent}{_COMMENT[proj.lang]} {rng.choice(_VERBS)} the {rng.choice(proj.nouns)} first"
        )
        new = "\n".join([*lines[:i], ins, *lines[i:]])
    else:
        new = "\n".join(lines[: max(1, len(lines) // 2)])
    if needle:
        new += f"\n{_COMMENT[proj.lang]} see {needle}"
    return path, old, new


# --------------------------------------------------------------------------------------------
# Session plans and builders
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    idx: int
    seed: int
    session_id: str
    ide: bool
    project: int
    target: int
    created_ms: int
    iso_date: bool
    compacted: bool
    listed: bool
    needles: list[tuple[int, float]] = field(default_factory=list)  # (needle index, when 0..1)
    heavy: bool = False  # the CLI-heavy shape (SHAPES["cli"])


@dataclass(slots=True)
class _Result:
    idx: int
    session_id: str
    nbytes: int
    items: int
    title: str
    workspace: str
    message_count: int
    mtime_ns: int
    needles: list[int]
    common: list[int]


class _Builder:
    """Accumulates one session's history and a running size estimate."""

    def __init__(self, plan: _Plan, corpus: _Corpus) -> None:
        self.plan = plan
        self.rng = random.Random(f"session:{plan.seed}:{plan.idx}")
        self.proj = corpus.projects[plan.project]
        self.corpus = corpus
        self.history: list[dict[str, Json]] = []
        self.est = 400
        self.pending: list[tuple[int, float]] = sorted(plan.needles, key=lambda n: n[1])
        self.placed: list[int] = []
        self.first_user = ""
        rng = self.rng
        self.windows = plan.ide and rng.random() < 0.06
        if plan.ide:
            self.root = (
                f"c:\\Users\\dev\\source\\repos\\{self.proj.name}"
                if self.windows
                else f"/home/dev/{self.proj.name}"
            )
        else:
            self.root = rng.choice(
                (
                    f"/home/dev/{self.proj.name}",
                    f"/home/dev/{self.proj.name}",
                    f"/Users/dev/code/{self.proj.name}",
                )
            )

    # -- helpers ------------------------------------------------------------------------------

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def call_id(self, style: str) -> str:
        alphabet = string.ascii_letters + string.digits
        if style == "toolu":
            return "toolu_01" + "".join(self.rng.choices(alphabet, k=22))
        return "call_" + "".join(self.rng.choices(alphabet, k=24))

    def uri(self, rel: str) -> str:
        if self.windows:
            return "file:///c%3A/Users/dev/source/repos/" + self.proj.name + "/" + rel
        return "file://" + self.root + "/" + rel

    def take(self, where: str, now: bool = False) -> str | None:
        """The next needle for this slot kind if its moment has come (`now`: whatever the time)."""
        if not self.pending:
            return None
        progress = 2.0 if now else self.est / max(1, self.plan.target)
        for i, (n, when) in enumerate(self.pending):
            if _NEEDLES[n][1] == where and when <= progress:
                del self.pending[i]
                self.placed.append(n)
                return _NEEDLES[n][0]
        return None

    def due(self) -> set[str]:
        """Slot kinds of the needles whose moment has come (all of them once past the target)."""
        progress = self.est / max(1, self.plan.target)
        return {_NEEDLES[n][1] for n, when in self.pending if when <= progress}

    def more(self) -> bool:
        """Whether to start another exchange: below target, or needles still to place."""
        return self.est < self.plan.target or bool(self.pending)

    def add(self, item: dict[str, Json], size: int) -> None:
        self.history.append(item)
        self.est += int(size * 1.06) + 160

    def needle_path(self, needle: str) -> str:
        return f"{self.rng.choice(self.proj.dirs)}/{needle}.{self.proj.ext}"

    def tool_path(self, path: str) -> str:
        """Paths as a model gives them: mostly relative, sometimes absolute."""
        if self.rng.random() < 0.25:
            sep = "\\" if self.windows else "/"
            return self.root + sep + path.replace("/", sep)
        return path

    def user_text(self, first: bool, needle: str | None) -> str:
        rng, proj = self.rng, self.proj
        text = _say(rng, proj, _USER_PROMPTS if first or rng.random() < 0.5 else _FOLLOW_UPS)
        if rng.random() < 0.12:
            # Pasted terminal output: a common way users bring errors in.
            text += "\n\n```\n" + _traceback(rng, proj, self.root) + "\n```"
        if needle:
            text += f"\n\nAlso, the {needle} thing came up again, keep it in mind."
        return text


def _ide_session(plan: _Plan, corpus: _Corpus) -> tuple[dict[str, Json], _Builder]:
    b = _Builder(plan, corpus)
    rng, proj = b.rng, b.proj
    wheres = {_NEEDLES[n][1] for n, _ in plan.needles}
    models = _IDE_MODELS
    if "thinking" in wheres:  # a planted thinking needle needs a model that thinks
        models = tuple(m for m in _IDE_MODELS if m[3])
    model = rng.choices(models, weights=_IDE_MODEL_WEIGHTS[: len(models)])[0]
    title_model, provider, window, thinks, id_style = model
    mode = rng.choices(("agent", "chat", "plan"), weights=(65, 25, 10))[0]
    if wheres & _TOOL_SLOTS:  # planted tool needles need a mode that runs and edits
        mode = "agent"
    has_mcp = rng.random() < 0.15
    system = corpus.system_messages[mode]
    # The rendered prompt is pruned from the oldest turn once it exceeds the context window.
    chunks: deque[str] = deque()
    chunk_len = 0
    prompt_logs_total = 0

    def push(chunk: str) -> None:
        nonlocal chunk_len
        chunks.append(chunk)
        chunk_len += len(chunk)
        while chunk_len > window and len(chunks) > 1:
            chunk_len -= len(chunks.popleft())

    def prompt_log(completion: str) -> list[dict[str, Json]]:
        nonlocal prompt_logs_total
        prompt = "<system>\n" + system + "\n\n" + "".join(chunks)
        prompt_logs_total += len(prompt)
        log: dict[str, Json] = {
            "modelTitle": title_model,
            "modelProvider": provider,
            "prompt": prompt,
            "completion": completion,
        }
        if rng.random() < 0.3:
            log["completionOptions"] = {
                "model": title_model.lower().replace(" ", "-"),
                "maxTokens": 4096,
                "reasoning": thinks,
            }
        b.est += len(prompt) + len(completion)
        return [log]

    exchange = 0
    while b.more():
        due = b.due()
        first = exchange == 0
        # ---- user item
        text = b.user_text(first, b.take("user"))
        if first:
            b.first_user = text
        parts: list[dict[str, Json]] = [{"type": "text", "text": text}]
        size = len(text) * 2
        if rng.random() < 0.03:
            img = rng.choice(corpus.images)
            parts.append({"type": "imageUrl", "imageUrl": {"url": img}})
            size += len(img)
        ctx: list[dict[str, Json]] = []
        rendered_ctx = ""
        if rng.random() < (0.55 if first else 0.2):
            for path, content in rng.sample(proj.files, rng.randrange(1, 4)):
                ctx.append(
                    {
                        "content": f"```{path}\n{content}\n```",
                        "name": path.rsplit("/", 1)[-1],
                        "description": path,
                        "id": {"providerTitle": "file", "itemId": b.uid()},
                        "uri": {"type": "file", "value": b.uri(path)},
                    }
                )
                rendered_ctx += f"```{path}\n{content}\n```\n"
                size += len(content)
        mention_nodes: list[Json] = [
            {
                "type": "mention",
                "attrs": {
                    "id": c["description"],
                    "label": c["name"],
                    "renderInlineAs": None,
                    "query": c["description"],
                    "itemType": "file",
                },
            }
            for c in ctx
        ]
        editor = {
            "type": "doc",
            "content": [
                {
                    "type": "paragraph",
                    "content": [*(mention_nodes if i == 0 else []), {"type": "text", "text": para}],
                }
                for i, para in enumerate(text.split("\n\n"))
            ],
        }
        b.add(
            {
                "message": {"role": "user", "content": parts, "id": b.uid()},
                "contextItems": ctx,
                "editorState": editor,
            },
            size,
        )
        push(f"<user>\n{rendered_ctx}{text}\n\n")
        # ---- tool rounds
        rounds = 0 if mode == "chat" else min(12, int(rng.expovariate(1 / 2.2)))
        if due & _TOOL_SLOTS:
            rounds = max(rounds, 1 + len(due & _TOOL_SLOTS))
        for r in range(rounds):
            if thinks and (rng.random() < 0.2 or "thinking" in b.due()):
                _ide_thinking(b, push, b.take("thinking"))
            n_calls = 1 if rng.random() < 0.8 else rng.randrange(2, 4)
            calls: list[dict[str, Json]] = []
            states: list[dict[str, Json]] = []
            tool_items: list[tuple[dict[str, Json], int]] = []
            text_before = _say(rng, proj, _ASSISTANT_SENTENCES) if rng.random() < 0.6 else ""
            rendered_calls = []
            stop = False
            for _ in range(n_calls):
                name, args, output, status, tool_text, size = _ide_tool(
                    b, mode, has_mcp, r == rounds - 1
                )
                cid = b.call_id(id_style)
                arg_s = _compact(args)
                call: dict[str, Json] = {
                    "id": cid,
                    "type": "function",
                    "function": {"name": name, "arguments": arg_s},
                }
                calls.append(call)
                state: dict[str, Json] = {
                    "toolCallId": cid,
                    "toolCall": call,
                    "status": status,
                    "parsedArgs": args,
                }
                if output is not None:
                    state["output"] = output
                states.append(state)
                tool_items.append(
                    (
                        {
                            "message": {
                                "role": "tool",
                                "content": tool_text,
                                "toolCallId": cid,
                                "id": b.uid(),
                            },
                            "contextItems": [],
                        },
                        len(tool_text),
                    )
                )
                rendered_calls.append(f"{name}({arg_s})")
                b.est += size + len(arg_s) * 2
                stop = stop or status == "canceled"
            item: dict[str, Json] = {
                "message": {
                    "role": "assistant",
                    "content": text_before,
                    "id": b.uid(),
                    "toolCalls": calls,
                },
                "contextItems": [],
                "toolCallStates": states,
            }
            item["promptLogs"] = prompt_log(text_before)
            b.add(item, len(text_before))
            push("<assistant>\n" + "\n".join(rendered_calls) + "\n\n")
            for tool_item, tsize in tool_items:
                b.add(tool_item, tsize)
                push(f"<tool>\n{tool_item['message']['content']}\n\n")
            if stop:
                break
        # ---- final reply
        if thinks and (rng.random() < 0.25 or "thinking" in b.due()):
            _ide_thinking(b, push, b.take("thinking"))
        reply = _assistant_text(rng, proj, long=True)
        needle = b.take("assistant")
        if needle:
            reply += f"\n\nNote: `{needle}` is involved here as well."
        final: dict[str, Json] = {
            "message": {"role": "assistant", "content": reply, "id": b.uid()},
            "contextItems": [],
        }
        if provider == "ollama" and rng.random() < 0.4:
            start = plan.created_ms + len(b.history) * 1000
            final["reasoning"] = {
                "active": False,
                "text": _assistant_text(rng, proj, long=False),
                "startAt": start,
                "endAt": start + rng.randrange(800, 20000),
            }
        final["promptLogs"] = prompt_log(reply)
        if rng.random() < 0.1:
            final["appliedRules"] = [
                {"name": "Default " + mode + " system message", "source": "default-" + mode}
            ]
        b.add(final, len(reply))
        push(f"<assistant>\n{reply}\n\n")
        exchange += 1
        # Non-destructive IDE compaction in long sessions: the prompt restarts from a summary.
        if prompt_logs_total > 3_000_000 and rng.random() < 0.03:
            summary = "Summary of the conversation so far:\n" + _assistant_text(
                rng, proj, long=True
            )
            final["conversationSummary"] = summary
            chunks.clear()
            chunk_len = 0
            push(f"<user>\n{summary}\n\n")
            b.est += len(summary)
    title = _title(rng, proj, ide=True)
    doc: dict[str, Json] = {
        "sessionId": plan.session_id,
        "title": title,
        "workspaceDirectory": _workspace(b, plan),
        "history": b.history,
        "mode": mode,
        "chatModelTitle": title_model if rng.random() < 0.97 else None,
    }
    return doc, b


def _ide_thinking(b: _Builder, push: Callable[[str], None], needle: str | None) -> None:
    text = _assistant_text(b.rng, b.proj, long=False)
    if needle:
        text += f" I should double-check the {needle} before editing."
    b.add(
        {
            "message": {
                "role": "thinking",
                "content": text,
                "id": b.uid(),
                "signature": b.rng.choice(b.corpus.signatures),
            },
            "contextItems": [],
        },
        len(text),
    )
    push(f"<thinking>\n{text}\n\n")


def _ide_tool(
    b: _Builder, mode: str, has_mcp: bool, last: bool
) -> tuple[str, dict[str, Json], list[dict[str, Json]] | None, str, str, int]:
    """(tool name, args, output items, status, role:"tool" content, size estimate)."""
    rng, proj = b.rng, b.proj
    forced = b.due() & _TOOL_SLOTS
    if forced:
        want = sorted(forced)[0]
        name = {
            "command": "run_terminal_command",
            "output": "run_terminal_command",
            "stderr": "run_terminal_command",
            "path": "read_file",
            "edit": "edit_existing_file",
        }[want]
    elif mode == "plan":
        name = rng.choices(
            ("read_file", "read_file_range", "grep_search", "ls", "file_glob_search"),
            weights=(40, 15, 25, 10, 10),
        )[0]
    else:
        tools = [
            "read_file",
            "run_terminal_command",
            "edit_existing_file",
            "single_find_and_replace",
            "grep_search",
            "read_file_range",
            "ls",
            "create_new_file",
            "multi_edit",
            "file_glob_search",
        ]
        weights = [22, 22, 12, 10, 10, 6, 5, 5, 4, 2]
        if has_mcp:
            tools.append("github_create_issue")
            weights.append(6)
        name = rng.choices(tools, weights=weights)[0]
    roll = rng.random()
    status = "done" if roll < 0.88 else ("errored" if roll < 0.96 else "canceled")
    if last and rng.random() < 0.01:
        status = rng.choice(("generated", "calling"))  # saved mid-turn
    args: dict[str, Json]
    output: list[dict[str, Json]] | None = None
    text = ""
    size = 0
    if name == "run_terminal_command":
        cmd = _command(rng, proj)
        needle = b.take("command")
        if needle:
            cmd = f"./scripts/{needle}.sh --dry-run" if "_" in needle else f"pnpm run {needle}"
        args = {"command": cmd, "waitForCompletion": True}
        n_out = b.take("output")
        n_err = None if n_out else b.take("stderr")
        if n_out or n_err:  # the output must survive: no error/cancel replaces it
            status = "done"
        fail = bool(n_err) or (not n_out and rng.random() < 0.25)
        out, err, code = _run(rng, proj, cmd, b.root, fail)
        if n_out:
            out += f"\nwarning: {n_out} reported by {proj.name}"
        if n_err:
            err += f"\nerror: {n_err}: upstream closed the connection"
            code = code or 1
        if status == "done":
            content = out + ("\n" + err if err else "")
            st = "Command completed" if code == 0 else f"Command failed with exit code {code}"
            output = [
                {
                    "name": "Terminal",
                    "description": "Terminal command output",
                    "content": content,
                    "status": st,
                }
            ]
            text = content
    elif name in ("read_file", "read_file_range"):
        path, content = rng.choice(proj.files)
        needle = b.take("path")
        if needle:
            path = b.needle_path(needle)
        if name == "read_file_range":
            lines = content.split("\n")
            s = rng.randrange(0, max(1, len(lines) - 10))
            e = min(len(lines), s + rng.randrange(10, 80))
            content = "\n".join(lines[s:e])
            args = {"filepath": b.tool_path(path), "startLine": s + 1, "endLine": e}
        else:
            args = {"filepath": b.tool_path(path)}
        output = [
            {
                "name": path.rsplit("/", 1)[-1],
                "description": path,
                "content": content,
                "uri": {"type": "file", "value": b.uri(path)},
            }
        ]
        text = content
    elif name in ("edit_existing_file", "single_find_and_replace", "multi_edit"):
        path, old, new = _edit_pair(rng, proj, b.take("edit"))
        if name == "edit_existing_file":
            c = _COMMENT[proj.lang]
            args = {
                "filepath": b.tool_path(path),
                "changes": f"{c} ... existing code ...\n{new}\n{c} ... existing code ...",
            }
        elif name == "single_find_and_replace":
            args = {"filepath": b.tool_path(path), "old_string": old, "new_string": new}
        else:
            _, old2, new2 = _edit_pair(rng, proj, None)
            args = {
                "filepath": b.tool_path(path),
                "edits": [
                    {"old_string": old, "new_string": new},
                    {"old_string": old2, "new_string": new2},
                ],
            }
        output = []
        text = f"Successfully edited {path}" if status == "done" else ""
        size = len(old) + len(new)
    elif name == "create_new_file":
        path, content = rng.choice(proj.files)
        path = path.rsplit(".", 1)[0] + "_new." + proj.ext
        args = {"filepath": b.tool_path(path), "contents": content}
        output = []
        text = "File created successfully"
        size = len(content) * 2
    elif name == "grep_search":
        q = rng.choice(proj.idents)
        args = {"query": q}
        out, _, _ = _run(rng, proj, f'rg -n "{q}"', b.root, False)
        output = [
            {"name": "Search results", "description": "Results from grep search", "content": out}
        ]
        text = out
    elif name == "file_glob_search":
        args = {"pattern": f"**/*.{proj.ext}"}
        out = "\n".join(p for p, _ in proj.files[: rng.randrange(3, 20)])
        output = [
            {"name": "File results", "description": "Results from file glob search", "content": out}
        ]
        text = out
    elif name == "ls":
        d = rng.choice(proj.dirs)
        args = {"dirPath": d, "recursive": rng.random() < 0.3}
        out = "\n".join(p for p, _ in proj.files if p.startswith(d))
        output = [
            {"name": "File/folder list", "description": f"Files/folders in {d}", "content": out}
        ]
        text = out
    else:
        title = _say(rng, proj, _TITLES)
        args = {
            "owner": "dev",
            "repo": proj.name,
            "title": title,
            "body": _assistant_text(rng, proj, long=False),
        }
        number = rng.randrange(1, 3000)
        url = f"https://github.com/dev/{proj.name}/issues/{number}"
        issue = {"number": number, "title": title, "state": "open", "html_url": url}
        # MCP results are stored as the JSON text of the MCP content array.
        out = _compact([{"type": "text", "text": _compact(issue)}])
        output = [{"name": name, "description": "github MCP tool result", "content": out}]
        text = out
    if status == "errored":
        if name == "run_terminal_command":
            msg = rng.choice(("Command timed out after 120s", "Terminal is not available"))
        elif "edit" in name or "replace" in name:
            msg = rng.choice(
                (
                    "old_string not found in file",
                    "Failed to apply changes: the file changed on disk",
                )
            )
        elif name == "github_create_issue":
            msg = "MCP error -32603: Bad credentials"
        else:
            msg = f"File {args.get('filepath', args.get('dirPath', '.'))} does not exist"
        output = [
            {
                "icon": "problems",
                "name": "Tool Call Error",
                "description": "Tool Call Failed",
                "content": f"{name} failed with the message: {msg}\n\nPlease try something else "
                "or request further instructions.",
                "hidden": False,
            }
        ]
        text = output[0]["content"]
    elif status == "canceled":
        output = None
        text = "The user cancelled this tool call."
    elif status in ("generated", "calling"):
        output = None
        text = "No tool output"
    size += len(text)
    return name, args, output, status, text, size


def _cli_session(plan: _Plan, corpus: _Corpus) -> tuple[dict[str, Json], _Builder]:
    b = _Builder(plan, corpus)
    rng, proj = b.rng, b.proj
    capable = rng.random() < 0.6  # "capable" models are offered MultiEdit instead of Edit
    id_style = "toolu" if rng.random() < 0.5 else "call"
    prompt_tokens = completion_tokens = cached = 0
    if plan.compacted:
        summary = (
            "## Conversation summary\n\n"
            + _assistant_text(rng, proj, long=True)
            + "\n\n"
            + _assistant_text(rng, proj, long=True)
        )
        needle = b.take("summary", now=True)  # the summary only exists at the start
        if needle:
            summary += f"\n\nOpen item: the {needle} must be revisited."
        b.add(
            {
                "message": {"role": "assistant", "content": summary},
                "contextItems": [],
                "conversationSummary": summary,
            },
            len(summary) * 2,
        )
        if rng.random() < 0.5:  # auto-compaction leaves a reply, "continue", a reply
            reply = _assistant_text(rng, proj, long=False)
            b.add(
                {"message": {"role": "assistant", "content": reply}, "contextItems": []}, len(reply)
            )
            b.add(
                {
                    "message": {"role": "user", "content": "continue"},
                    "contextItems": [],
                    "editorState": "continue",
                },
                16,
            )
            reply = _assistant_text(rng, proj, long=True)
            b.add(
                {"message": {"role": "assistant", "content": reply}, "contextItems": []}, len(reply)
            )
    read_paths: set[str] = set()
    exchange = 0
    while b.more():
        due = b.due()
        text = b.user_text(exchange == 0, b.take("user"))
        if exchange == 0:
            b.first_user = text
        ctx: list[dict[str, Json]] = []
        size = len(text) * 2
        heavy = b.plan.heavy
        if rng.random() < (0.6 if heavy else 0.08):
            path, content = rng.choice(proj.files)
            ctx.append(
                {
                    "id": {"providerTitle": "file", "itemId": b.uid()},
                    "content": content,
                    "name": path.rsplit("/", 1)[-1],
                    "description": "/".join(path.split("/")[-2:]),
                    "uri": {"type": "file", "value": "file://" + b.root + "/" + path},
                }
            )
            size += len(content)
            for _ in range(rng.randrange(0, 3) if heavy else 0):
                more_path, more = rng.choice(proj.files)
                ctx.append({**ctx[0], "content": more, "name": more_path.rsplit("/", 1)[-1]})
                size += len(more)
        b.add(
            {
                "message": {"role": "user", "content": text},
                "contextItems": ctx,
                "editorState": text,
            },
            size,
        )
        rounds = min(25, int(rng.expovariate(1 / (8.0 if heavy else 3.0))))
        if due & _TOOL_SLOTS:
            rounds = max(rounds, 1 + len(due & _TOOL_SLOTS))
        for _ in range(rounds):
            n_calls = 1 if rng.random() < 0.85 else rng.randrange(2, 4)
            calls: list[dict[str, Json]] = []
            states: list[dict[str, Json]] = []
            for _ in range(n_calls):
                name, args, out_text, status, size = _cli_tool(b, capable, read_paths)
                cid = b.call_id(id_style)
                arg_s = _compact(args)
                call: dict[str, Json] = {
                    "id": cid,
                    "type": "function",
                    "function": {"name": name, "arguments": arg_s},
                }
                calls.append(call)
                state: dict[str, Json] = {
                    "toolCallId": cid,
                    "toolCall": call,
                    "status": status,
                    "parsedArgs": args,
                }
                if out_text is not None:
                    state["output"] = [
                        {
                            "content": out_text,
                            "name": "Tool Result",
                            "description": "Tool execution result",
                        }
                    ]
                states.append(state)
                b.est += size + len(arg_s) * 3
            content = _say(rng, proj, _ASSISTANT_SENTENCES) if rng.random() < 0.5 else ""
            pt, ct = rng.randrange(2_000, 60_000), rng.randrange(20, 900)
            prompt_tokens, completion_tokens = prompt_tokens + pt, completion_tokens + ct
            cached += int(pt * rng.uniform(0, 0.9))
            b.add(
                {
                    "message": {"role": "assistant", "content": content, "toolCalls": calls},
                    "contextItems": [],
                    "toolCallStates": states,
                },
                len(content),
            )
        reply = _assistant_text(rng, proj, long=rng.random() < 0.6)
        needle = b.take("assistant")
        if needle:
            reply += f"\n\nNote: `{needle}` is involved here as well."
        pt, ct = rng.randrange(2_000, 60_000), rng.randrange(50, 2_000)
        prompt_tokens, completion_tokens = prompt_tokens + pt, completion_tokens + ct
        msg: dict[str, Json] = {"role": "assistant", "content": reply}
        if rng.random() < 0.5:
            msg["usage"] = {"completionTokens": ct, "promptTokens": pt}
        b.add({"message": msg, "contextItems": []}, len(reply))
        exchange += 1
    cost = round(prompt_tokens * 3e-6 + completion_tokens * 15e-6 - cached * 2.7e-6, 6)
    usage: dict[str, Json] = {
        "promptTokens": prompt_tokens,
        "completionTokens": completion_tokens,
        "promptTokensDetails": {"cachedTokens": cached},
        "totalCost": cost if cost > 0 else 0,
    }
    doc: dict[str, Json] = {
        "sessionId": plan.session_id,
        "title": _title(rng, proj, ide=False),
        "workspaceDirectory": _workspace(b, plan),
        "history": b.history,
        "usage": usage,
    }
    return doc, b


def _cli_tool(
    b: _Builder, capable: bool, read_paths: set[str]
) -> tuple[str, dict[str, Json], str | None, str, int]:
    """(tool name, args, output text or None, status, size estimate)."""
    rng, proj = b.rng, b.proj
    edit_tool = "MultiEdit" if capable else "Edit"
    forced = b.due() & _TOOL_SLOTS
    if forced:
        want = sorted(forced)[0]
        name = {
            "command": "Bash",
            "output": "Bash",
            "stderr": "Bash",
            "path": "Read",
            "edit": edit_tool,
        }[want]
    else:
        name = rng.choices(
            (
                "Bash",
                "Read",
                edit_tool,
                "Write",
                "Search",
                "List",
                "Checklist",
                "Fetch",
                "create_issue",
            ),
            weights=(40, 25, 20, 10, 3, 2, 0, 0, 0)
            if b.plan.heavy
            else (35, 25, 15, 6, 10, 5, 2, 1, 1),
        )[0]
    roll = rng.random()
    status = "done" if roll < 0.9 else ("errored" if roll < 0.97 else "canceled")
    args: dict[str, Json]
    out: str | None = ""
    size = 0
    if name == "Bash":
        cmd = _command(rng, proj)
        needle = b.take("command")
        if needle:
            cmd = f"./scripts/{needle}.sh --dry-run" if "_" in needle else f"pnpm run {needle}"
        args = {"command": cmd} if rng.random() < 0.8 else {"command": cmd, "timeout": 300}
        n_out = b.take("output")
        n_err = None if n_out else b.take("stderr")
        if n_out or n_err:  # the output must survive: no cancel replaces it
            status = "done"
        fail = bool(n_err) or (not n_out and rng.random() < 0.25)
        stdout, stderr, code = _run(rng, proj, cmd, b.root, fail)
        for _ in range(rng.randrange(1, 5) if b.plan.heavy else 0):  # a long build or test log
            stdout += "\n" + _run(rng, proj, _command(rng, proj), b.root, False)[0]
        if n_out and code != 0 and stderr:
            stderr = ""  # keep stdout (where the needle goes): an errored call would drop it
        if n_out:
            stdout += f"\nwarning: {n_out} reported by {proj.name}"
        if n_err:
            stderr += f"\nerror: {n_err}: upstream closed the connection"
            code = code or 1
        if status == "done" and code != 0 and stderr:
            status = "errored"
        if status == "errored":
            out = f"Error executing tool Bash: Error (exit code {code or 1}): {stderr or 'failed'}"
        elif status == "done":
            out = stdout
            if stderr:
                out += f"\n\nStderr: {stderr}\n"
            if rng.random() < 0.01:
                out += "\n[Command timed out after 180 seconds of no output]"
    elif name == "Read":
        path, content = rng.choice(proj.files)
        needle = b.take("path")
        if needle:
            path = b.needle_path(needle)
        p = b.tool_path(path)
        args = {"filepath": p}
        read_paths.add(path)
        out = f"Content of {p}:\n{content}" if status == "done" else f"File {p} does not exist"
    elif name in ("Edit", "MultiEdit"):
        path, old, new = _edit_pair(rng, proj, b.take("edit"))
        p = b.tool_path(path)
        if name == "Edit":
            args = {"file_path": p, "old_string": old, "new_string": new}
            if rng.random() < 0.05:
                args["replace_all"] = True
        else:
            _, old2, new2 = _edit_pair(rng, proj, None)
            args = {
                "file_path": p,
                "edits": [
                    {"old_string": old, "new_string": new},
                    {"old_string": old2, "new_string": new2},
                ],
            }
        if status == "done" and path not in read_paths and rng.random() < 0.3:
            status = "errored"
            out = f"You must use the Read tool to read {p} before editing it."
        elif status == "done":
            out = f"Successfully edited {b.root}/{path}\nDiff:\n" + _diff(
                path, old, new, rng.randrange(1, 300)
            )
        else:
            out = f"Error executing tool {name}: old_string not found in {p}"
        size = (len(old) + len(new)) * 3
    elif name == "Write":
        path, content = rng.choice(proj.files)
        path = path.rsplit(".", 1)[0] + "_v2." + proj.ext
        args = {"filepath": b.tool_path(path), "content": content}
        out = f"Successfully created file: {b.tool_path(path)}"
        size = len(content) * 3
    elif name == "Search":
        q = rng.choice(proj.idents)
        args = (
            {"pattern": q} if rng.random() < 0.7 else {"pattern": q, "path": rng.choice(proj.dirs)}
        )
        out, _, _ = _run(rng, proj, f'rg -n "{q}"', b.root, False)
    elif name == "List":
        d = rng.choice(proj.dirs)
        args = {"dirpath": d}
        out = "\n".join(p.rsplit("/", 1)[-1] for p, _ in proj.files if p.startswith(d))
    elif name == "Checklist":
        args = {
            "checklist": "\n".join(
                f"- [{'x' if rng.random() < 0.5 else ' '}] {_say(rng, proj, _TITLES)}"
                for _ in range(4)
            )
        }
        out = "Checklist updated"
    elif name == "Fetch":
        args = {"url": f"https://docs.example.com/{proj.name}/{rng.choice(proj.nouns)}"}
        out = _assistant_text(rng, proj, long=True)
    else:
        title = _say(rng, proj, _TITLES)
        args = {"repo": f"dev/{proj.name}", "title": title}
        out = _compact(
            [{"type": "text", "text": f"Created issue #{rng.randrange(1, 3000)}: {title}"}]
        )
    if status == "canceled":
        out = rng.choice(
            (
                "Permission denied by user",
                "Permission denied by user",
                "Command blocked by security policy",
            )
        )
    elif status == "errored" and name not in ("Bash", "Edit", "MultiEdit", "Read"):
        why = rng.choice(("ENOENT: no such file or directory", "timeout"))
        out = f"Error executing tool {name}: {why}"
    size += len(out or "")
    return name, args, out, status, size


def _workspace(b: _Builder, plan: _Plan) -> str:
    if b.rng.random() < 0.01:
        return ""
    if plan.ide:
        if b.windows:
            return "file:///c%3A/Users/dev/source/repos/" + b.proj.name
        return "file://" + b.root
    return b.root


def _title(rng: random.Random, proj: _Project, ide: bool) -> str:
    roll = rng.random()
    if roll < (0.06 if ide else 0.15):
        return "New Session" if ide else "Untitled Session"
    if roll < (0.065 if ide else 0.15):
        return "[object Object]"  # seen in JetBrains stores
    return _say(rng, proj, _TITLES)


def _build_session(plan: _Plan) -> _Result:
    """Build, write and stamp one session file (runs in worker processes)."""
    corpus = _corpus(plan.seed)
    doc, b = (_ide_session if plan.ide else _cli_session)(plan, corpus)
    data = _pretty(doc)
    path = _OUT_DIR / f"{plan.session_id}.json"
    with open(path, "wb") as fh:
        fh.write(data)
    items = len(b.history)
    # Activity: seconds per item, never less than one second per item (turns are laid out
    # one second apart from dateCreated and must not pass the mtime).
    active_s = items + sum(b.rng.randrange(1, 40) for _ in range(min(items, 400)))
    mtime_ns = (plan.created_ms + active_s * 1000) * 1_000_000
    os.utime(path, ns=(mtime_ns, mtime_ns))
    lowered = data.lower()
    common = [i for i, q in enumerate(_COMMON_QUERIES) if q.lower().encode() in lowered]
    for n in b.placed:
        if _NEEDLES[n][0].lower().encode() not in lowered:  # pragma: no cover - generator bug
            raise AssertionError(f"needle {_NEEDLES[n][0]!r} lost in {plan.session_id}")
    assistants = sum(1 for it in b.history if it["message"]["role"] == "assistant")
    return _Result(
        plan.idx,
        plan.session_id,
        len(data),
        items,
        doc["title"],
        doc["workspaceDirectory"],
        assistants,
        mtime_ns,
        sorted(set(b.placed)),
        common,
    )


_OUT_DIR = Path(".")


def _init_worker(out_dir: Path, seed: int) -> None:
    global _OUT_DIR
    _OUT_DIR = out_dir
    _corpus(seed)


# --------------------------------------------------------------------------------------------
# Planning and the public API
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoreStats:
    """What make_store wrote. `bytes` counts session files plus sessions.json."""

    sessions: int
    bytes: int
    items: int
    ide_sessions: int = 0
    cli_sessions: int = 0
    largest: int = 0
    seconds: float = 0.0
    needles: Path | None = None


class _Planner:
    def __init__(self, seed: int, target_bytes: int, shape: str = "default") -> None:
        self.seed = seed
        self.heavy = shape == "cli"
        self.rng = random.Random(f"plan:{seed}" if not self.heavy else f"plan:{seed}:{shape}")
        mean = _HEAVY_MEAN_BYTES if self.heavy else _MEAN_SESSION_BYTES
        self.est_count = max(1, target_bytes // mean)
        self.gap_ms = (_T_END_MS - _T_START_MS) / self.est_count
        self.clock = float(_T_START_MS)
        self.idx = 0
        # Fixed-count needles go into sessions at fixed points spread over the first 60%.
        self.wanted: list[tuple[int, int]] = []
        for n, (_, _, count, _) in enumerate(_NEEDLES):
            for _ in range(count):
                self.wanted.append((self.rng.randrange(0, max(1, int(self.est_count * 0.6))), n))
        self.wanted.sort()

    def next(self, budget: int) -> _Plan:
        rng = self.rng
        ide = rng.random() < _IDE_SHARE and not self.heavy
        median, sigma, lo, hi = _HEAVY_SIZE if self.heavy else _IDE_SIZE if ide else _CLI_SIZE
        target = int(min(hi, max(lo, rng.lognormvariate(math.log(median), sigma))))
        target = max(lo, min(target, budget))
        self.clock += rng.expovariate(1 / self.gap_ms)
        created = int(self.clock)
        project = rng.choices(range(len(_PROJECTS)), weights=_PROJECT_WEIGHTS)[0]
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        iso = not ide and created < _ISO_CUTOFF_MS
        compacted = not ide and target > 250_000 and rng.random() < 0.4
        if not ide and any(at <= self.idx and _NEEDLES[n][1] == "summary" for at, n in self.wanted):
            compacted = True  # a manual /compact: the planted summary needle needs one
        listed = rng.random() > 0.005  # a lost list entry (concurrent writers): still a session
        plan = _Plan(
            self.idx, self.seed, sid, ide, project, target, created, iso, compacted, listed
        )
        plan.heavy = self.heavy
        if listed:
            self._assign_needles(plan)
        self.idx += 1
        return plan

    def _eligible(self, plan: _Plan, where: str) -> bool:
        if where == "thinking":
            return plan.ide
        if where == "summary":
            return plan.compacted
        return True

    def _assign_needles(self, plan: _Plan) -> None:
        rng = self.rng
        keep: list[tuple[int, int]] = []
        for at, n in self.wanted:
            if (
                at <= plan.idx
                and self._eligible(plan, _NEEDLES[n][1])
                and n not in {m for m, _ in plan.needles}
            ):
                plan.needles.append((n, rng.random() * 0.9))
            else:
                keep.append((at, n))
        self.wanted = keep
        for n, (_, where, count, rate) in enumerate(_NEEDLES):
            if count == 0 and rng.random() < rate and self._eligible(plan, where):
                plan.needles.append((n, rng.random() * 0.9))


def _results(plans: Iterable[_Plan], workers: int, out_dir: Path, seed: int) -> Iterator[_Result]:
    if workers <= 1:
        _init_worker(out_dir, seed)
        yield from map(_build_session, plans)
        return
    ctx = multiprocessing.get_context("fork")
    _corpus(seed)  # build once in the parent; forked workers share it copy-on-write
    with ctx.Pool(workers, initializer=_init_worker, initargs=(out_dir, seed)) as pool:
        yield from pool.imap(_build_session, plans, chunksize=1)


def make_store(
    out: Path, target_bytes: int, seed: int = 1, workers: int | None = None, shape: str = "default"
) -> StoreStats:
    """Generate a store of about `target_bytes` under `out` (see the module docstring)."""
    t0 = time.perf_counter()
    out = Path(out)
    sessions_dir = out / "sessions"
    sessions_dir.mkdir(parents=True, exist_ok=True)
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if target_bytes >= 50_000_000 else 1
    planner = _Planner(seed, target_bytes, shape)
    results: list[_Result] = []
    plans: list[_Plan] = []
    written = 0
    # Plan on estimated sizes, then top up from the measured total: deterministic either way.
    while written < target_bytes:
        batch: list[_Plan] = []
        planned = written
        while planned < target_bytes:
            plan = planner.next(int((target_bytes - planned) / _OVERSHOOT))
            batch.append(plan)
            planned += int(plan.target * _OVERSHOOT)
        for r in _results(batch, workers, sessions_dir, seed):
            results.append(r)
            written += r.nbytes
        plans += batch
    listing = [_list_entry(p, r) for p, r in zip(plans, results, strict=True) if p.listed]
    list_data = _pretty(listing)
    list_path = sessions_dir / "sessions.json"
    list_path.write_bytes(list_data)
    last_ns = max(r.mtime_ns for r in results)
    os.utime(list_path, ns=(last_ns, last_ns))
    needles_path = out / "needles.json"
    needles_path.write_bytes(_pretty(_needles_doc(seed, target_bytes, results)))
    os.utime(needles_path, ns=(last_ns, last_ns))
    return StoreStats(
        sessions=len(results),
        bytes=written + len(list_data),
        items=sum(r.items for r in results),
        ide_sessions=sum(1 for p in plans if p.ide),
        cli_sessions=sum(1 for p in plans if not p.ide),
        largest=max(r.nbytes for r in results),
        seconds=time.perf_counter() - t0,
        needles=needles_path,
    )


def _list_entry(plan: _Plan, r: _Result) -> dict[str, Json]:
    if plan.iso_date:
        t = time.gmtime(plan.created_ms / 1000)
        date = time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{plan.created_ms % 1000:03d}Z"
        # Old CLI builds predate messageCount.
        return {
            "sessionId": r.session_id,
            "title": r.title,
            "dateCreated": date,
            "workspaceDirectory": r.workspace,
        }
    return {
        "sessionId": r.session_id,
        "title": r.title,
        "dateCreated": str(plan.created_ms),
        "workspaceDirectory": r.workspace,
        "messageCount": r.message_count,
    }


def _needles_doc(seed: int, target_bytes: int, results: list[_Result]) -> dict[str, Json]:
    by_needle: dict[int, list[str]] = {}
    by_common: dict[int, list[str]] = {}
    for r in results:
        for n in r.needles:
            by_needle.setdefault(n, []).append(r.session_id)
        for c in r.common:
            by_common.setdefault(c, []).append(r.session_id)
    needles = []
    for n, (query, where, count, _rate) in enumerate(_NEEDLES):
        if n not in by_needle:
            continue  # a fixed-count needle whose session the store never reached
        needles.append(
            {
                "query": query,
                "where": where,
                "frequency": "rate" if count == 0 else ("unique" if count == 1 else "few"),
                "sessions": by_needle[n],
            }
        )
    common = [{"query": q, "sessions": by_common.get(c, [])} for c, q in enumerate(_COMMON_QUERIES)]
    return {
        "seed": seed,
        "target_bytes": target_bytes,
        "sessions_total": len(results),
        "match": "case-insensitive substring of the session file",
        "needles": needles,
        "common": common,
    }


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """'1G', '200M', '5m', '1.5G', '1000000' -> bytes (binary units)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTkmgt]?)(?:i?[Bb])?\s*", text)
    if not m:
        raise ValueError(f"bad size: {text!r} (expected e.g. 5M, 200M, 1G)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a realistic Continue session store.")
    ap.add_argument("out", type=Path, help="output directory (sessions/ goes inside)")
    ap.add_argument("--bytes", dest="size", default="20M", help="target size, e.g. 5M, 200M, 1G")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: up to 2)")
    ap.add_argument("--shape", choices=SHAPES, default="default", help="cli: the CLI-heavy shape")
    args = ap.parse_args(argv)
    try:
        target = parse_size(args.size)
    except ValueError as exc:
        ap.error(str(exc))
    if (args.out / "sessions").exists() and any((args.out / "sessions").iterdir()):
        ap.error(f"{args.out}/sessions is not empty")
    st = make_store(args.out, target, seed=args.seed, workers=args.workers, shape=args.shape)
    print(
        f"{st.sessions} sessions ({st.ide_sessions} IDE, {st.cli_sessions} CLI), "
        f"{st.items} items, {st.bytes / 1e6:.1f} MB, largest {st.largest / 1e6:.1f} MB, "
        f"{st.seconds:.1f}s ({st.bytes / 1e6 / max(st.seconds, 1e-9):.0f} MB/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
