"""A session as one self-contained HTML file that looks like the editor's session view: its
styles inlined, code highlighted at export time (Pygments), no script, nothing loaded from the
network (a `default-src 'none'` policy says so to the browser too). Every text from the session
is escaped; its Markdown is rendered with raw HTML off, images off and links kept to http(s) and
mailto, as the session view does."""

from __future__ import annotations

from html import escape
from itertools import groupby
from typing import TYPE_CHECKING

from deja.continue_store.tool_calls import call_outcome, edit_verb
from deja.quantities import human_size
from deja.time_format import iso_time

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from deja.query import SessionSummary, SessionView, TurnRecord

_SAFE_LINK = ("http://", "https://", "mailto:")
_WHO = {"user": "You", "summary": "Summary", "assistant": "Continue", "reasoning": "Continue"}
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'"
_CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #ffffff;
  --code: #f6f8fa; --border: #d1d9e0; --add: #1a7f37; --del: #cf222e; --addbg: #dafbe1;
  --delbg: #ffebe9; --badge: #8250df; --link: #0969da; --user: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117;
  --code: #161b22; --border: #3d444d; --add: #3fb950; --del: #f85149; --addbg: #12261e;
  --delbg: #25171c; --badge: #a371f7; --link: #4493f8; --user: #151b23; } }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px;
  color: var(--fg); background: var(--bg); padding: 0 20px 40px; max-width: 980px;
  margin: 0 auto; line-height: 1.5; }
code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 13px; }
a { color: var(--link); }
.session-head { border-bottom: 1px solid var(--border); padding: 12px 0 10px; margin-bottom: 8px; }
.session-head h1 { font-size: 1.5em; font-weight: 600; margin: 0 0 4px; }
.facts, .note { margin: 2px 0; color: var(--muted); }
.turn { padding: 8px 10px; margin: 6px 0; border-left: 3px solid transparent; }
.turn.role-user { background: var(--user); }
.turn.compacted { border-left-color: var(--badge); }
.turn-head { display: flex; gap: 8px; align-items: baseline; color: var(--muted);
  font-size: 0.9em; }
.who { font-weight: 600; color: var(--fg); }
.badge { border-radius: 8px; padding: 0 6px; font-size: 0.85em; color: #fff;
  background: var(--badge); }
.message { overflow-wrap: anywhere; }
.markdown pre { background: var(--code); padding: 8px; overflow-x: auto;
  border: 1px solid var(--border);
  border-radius: 4px; }
.markdown code { background: var(--code); padding: 0 3px; }
.markdown pre code { background: none; padding: 0; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid var(--border); padding: 2px 8px; }
details { margin: 4px 0; }
summary { cursor: pointer; }
.tool > summary, .tool.read { padding: 2px 4px; }
.tool .ended { color: var(--muted); margin-left: 4px; }
.tool.failed .ended { color: var(--del); }
.output, .diff { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; padding: 6px 8px;
  background: var(--code); }
.diff .add, summary .add { color: var(--add); }
.diff .del, summary .del { color: var(--del); }
.diff .add { display: block; background: var(--addbg); }
.diff .del { display: block; background: var(--delbg); }
.reasoning > summary { color: var(--muted); font-style: italic; }
.empty { color: var(--muted); font-style: italic; }
"""


def session_html(view: SessionView, now: float) -> str:
    summary = view.session
    turns = [
        _turn(turn, list(records)) for turn, records in groupby(view.records, lambda r: r.turn)
    ]
    body = "".join(turns) or '<p class="empty">No turns recorded.</p>'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(summary.title or 'Untitled session')}</title>"
        f"<style>{_CSS}{_highlight_css()}</style></head><body>"
        f'{_header(summary, now)}<main id="turns">{body}</main></body></html>\n'
    )


def _header(summary: SessionSummary, now: float) -> str:
    from deja.query import fork_line

    facts = [
        f"<code>{escape(summary.id)}</code>",
        escape(summary.workspace) if summary.workspace else "no workspace",
        f"started {escape(iso_time(summary.started))}",
        f"{summary.message_count} messages",
        escape(human_size(summary.size)),
    ]
    notes = []
    if summary.lost_context:
        notes.append("Compacted: the earlier turns are kept by Deja only.")
    if summary.deleted:
        notes.append("Deleted from Continue's store: kept by Deja.")
    forked = fork_line(summary)
    if forked:
        notes.append(f"{forked.capitalize()}: the turns before it are that session's.")
    from deja import settings

    redacted = (
        "were redacted" if settings.redact_secrets() else "were NOT redacted (DEJA_NO_REDACT)"
    )
    notes.append(f"Exported by Deja {iso_time(now)}; secrets {redacted} before indexing.")
    return (
        f'<header class="session-head"><h1>{escape(summary.title or "Untitled session")}</h1>'
        f'<p class="facts">{" · ".join(facts)}</p>'
        + "".join(f'<p class="note">{escape(note)}</p>' for note in notes)
        + "</header>"
    )


def _turn(turn: int, records: list[TurnRecord]) -> str:
    first = next((r.role for r in records if r.role in _WHO), "assistant")
    compacted = any(r.compacted for r in records)
    classes = f"turn role-{first}" + (" compacted" if compacted else "")
    mark = ' <span class="badge">compacted: only Deja has it</span>' if compacted else ""
    when = escape(iso_time(records[0].time))
    head = (
        f'<header class="turn-head"><span class="who">{_WHO.get(first, "Continue")}</span>'
        f' <time datetime="{when}">{when}</time> <span class="turn-no">turn {turn}</span>'
        f"{mark}</header>"
    )
    rows = "".join(_row(record) for record in records)
    return f'<section class="{classes}" id="turn-{turn}">{head}{rows}</section>'


def _ended(record: TurnRecord) -> str:
    if record.role == "command" and record.exit_code is not None:
        return f"exit {record.exit_code}"
    outcome = call_outcome(record.status)
    return "" if outcome is None else outcome


def _row(record: TurnRecord) -> str:
    if record.role == "reasoning":
        return (
            '<details class="reasoning"><summary>Reasoning</summary>'
            f'<div class="markdown">{markdown(record.text)}</div></details>'
        )
    if record.role in ("user", "assistant", "summary"):
        return f'<div class="message markdown">{markdown(record.text)}</div>'
    ended = _ended(record)
    failed = " failed" if ended and ended != "exit 0" else ""
    tail = f'<span class="ended">{escape(ended)}</span>' if ended else ""
    output = (
        f'<pre class="output">{escape(record.output)}</pre>'
        if record.output
        else '<p class="empty">No output.</p>'
    )
    path = f"<code>{escape(record.path or '?')}</code>"
    if record.role == "command":
        command = f"<code>$ {escape(record.args or '')}</code>"
        return _details(f"tool command{failed}", f"{command}{tail}", output)
    if record.role == "edit":
        verb = edit_verb(record.tool, ran=not call_outcome(record.status)).capitalize()
        added = sum(len(w.splitlines()) for _, w in record.hunks)
        removed = sum(len(r.splitlines()) for r, _ in record.hunks if r)
        counts = f'(<span class="add">+{added}</span> <span class="del">−{removed}</span>)'
        return (
            f'<details class="tool edit{failed}"><summary>{verb} {path} {counts}{tail}</summary>'
            f"{_diff(record.hunks)}</details>"
        )
    if record.role in ("read", "attached"):
        verb = "Read" if record.role == "read" else "Attached"
        return f'<div class="tool {record.role}{failed}">{verb} {path}{tail}</div>'
    args = f'<pre class="output">{escape(record.args)}</pre>' if record.args else ""
    name = f"<code>{escape(record.tool or '?')}</code>"
    return _details(f"tool other{failed}", f"tool {name}{tail}", args + output)


def _details(classes: str, summary: str, body: str) -> str:
    return f'<details class="{classes}"><summary>{summary}</summary>{body}</details>'


def _diff(hunks: list[tuple[str | None, str]]) -> str:
    lines: list[str] = []
    for replaced, written in hunks:
        lines += [
            f'<span class="del">- {escape(line)}</span>' for line in (replaced or "").splitlines()
        ]
        lines += [f'<span class="add">+ {escape(line)}</span>' for line in written.splitlines()]
    return f'<pre class="diff">{"".join(lines)}</pre>' if lines else ""


_RENDERER: list[MarkdownIt] = []


def markdown(text: str) -> str:
    """Session Markdown as HTML: raw HTML shown as text, no images, safe links only, code
    highlighted."""
    if not _RENDERER:
        _RENDERER.append(_make_renderer())
    return str(_RENDERER[0].render(text))


def _make_renderer() -> MarkdownIt:
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    renderer.enable(["table", "strikethrough"]).disable("image")
    # markdown-it-py's documented hook for which link targets are kept
    renderer.validateLink = _safe_link  # type: ignore[method-assign]
    return renderer


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(_SAFE_LINK)


def _highlight(code: str, language: str, _attrs: str) -> str:
    """Pygments' token spans for a known language; "" lets markdown-it escape it plainly."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language.strip().split()[0]) if language.strip() else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""
    spans = highlight(code, lexer, HtmlFormatter(nowrap=True, classprefix="hl-"))
    return f'<pre class="hl"><code>{spans}</code></pre>'


def _highlight_css() -> str:
    from pygments.formatters import HtmlFormatter

    light: str = HtmlFormatter(style="default", classprefix="hl-").get_style_defs(".hl")  # type: ignore[no-untyped-call]
    dark: str = HtmlFormatter(style="monokai", classprefix="hl-").get_style_defs(".hl")  # type: ignore[no-untyped-call]
    background = ".hl { background: var(--code); }"
    # The styles' own backgrounds give way to the page's code background.
    return f"{light}\n@media (prefers-color-scheme: dark) {{ {dark} }}\n{background}"
