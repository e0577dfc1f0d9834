"""What the screen's keys do beyond searching: the pass, paging a session, the prompts (since,
`deja fix`, blame), resume and hand off (confirmed first, run after the screen closes) and the
restore transcript copied. Each answers with `History` and the renderers the other doors use."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from deja import render_markdown as md
from deja.errors import DejaError
from deja.fix_blocks import fix_blocks, fix_nothing
from deja.query import History
from deja.query.handoff import Launch, check_id, handoff, resume
from deja.query.session_page import SessionPage
from deja.query.since import parse_since

if TYPE_CHECKING:
    from textual.binding import BindingType

    from .app import DejaApp

_PLAIN = re.compile(r"[\w.-]+")


class PassStopped(Exception):
    """The screen is closing: `progress` raises it, and the pass ends between two sessions."""


def run_pass(history: History, progress: Callable[[int, int], None]) -> str:
    """A pass on its own connection (it runs in a worker thread); what to say when it ends."""
    own = History(history.home, history.root)
    try:
        if own.store_unchanged():
            return ""
        report = own.refresh(progress=progress)
    except PassStopped:
        return ""
    except (DejaError, OSError) as error:
        return f"indexing stopped: {error}"
    finally:
        own.close()
    if report.refused is not None:
        return f"note: {report.refused.message}; answering from the index"
    return ""


# Turns a page: a screen holds a few; each is widgets to lay out (the editor's view takes 40).
PAGE_TURNS = 10


def pager(history: History, session_id: str) -> Callable[[int | None, int | None], SessionPage]:
    """Pages of one session (`PAGE_TURNS` turns), by position or at a turn."""

    def load(offset: int | None, at_turn: int | None) -> SessionPage:
        return history.session_page(session_id, offset=offset, limit=PAGE_TURNS, at_turn=at_turn)

    return load


def ask_since(app: DejaApp) -> None:
    from .screens import PromptScreen  # Textual's Markdown widget: when first asked

    def chosen(value: str | None) -> None:
        if value is None:
            return
        try:
            app.since = parse_since(value) if value.strip() else None
        except DejaError as error:
            app.say(error.message)
            return
        app.since_text = value.strip()
        app.refresh_search()

    question = "Since when? (7d, 12h, 2w, 2026-11-01; empty: any time)"
    app.push_screen(PromptScreen(question, "7d", app.since_text), chosen)


def _session(app: DejaApp) -> str | None:
    chosen = app.selected()
    if chosen is None:
        app.say("nothing selected")
    return None if chosen is None else chosen[0]


def confirm_launch(app: DejaApp, what: str) -> None:
    """Resume (`cn --fork ID` in its workspace) or hand off (`cn '<digest>'`), after a `y`."""
    from .screens import ConfirmScreen  # Textual's Markdown widget: when first asked

    session_id = _session(app)
    if session_id is None:
        return
    try:
        if what == "resume":
            plan = resume(app.history.summaries([check_id(session_id)])[0])
        else:
            from deja.query.digest import build_digest

            view = app.history.show(session_id)
            plan = handoff(view.session, build_digest(view))
    except DejaError as error:
        app.say(error.message)
        return
    shown = plan.line if len(plan.line) < 400 else plan.line[:400] + "…"
    question = f"Leave the screen and run this?\n\n  {shown}\n\n" + "\n".join(plan.notes)

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit(plan)
        else:
            app.say("not run")

    app.push_screen(ConfirmScreen(question), answered)


def copy_restore(app: DejaApp) -> None:
    session_id = _session(app)
    if session_id is None:
        return
    try:
        result = app.history.restore(session=session_id)
    except DejaError as error:
        app.say(error.message)
        return
    app.copy_to_clipboard(result.text)
    app.say(
        f"copied the restore transcript ({len(result.text):,} characters) through the terminal "
        f"(OSC 52); if nothing was copied, `deja restore --session {session_id[:8]}` prints it"
    )


def ask_fix(app: DejaApp) -> None:
    from .screens import AnswerScreen, PromptScreen  # Textual's Markdown widget: when first asked

    def chosen(error: str | None) -> None:
        if not error or not error.strip():
            return
        try:
            scope, _ = app.scope()
            result = app.history.fix(error, scope)
        except DejaError as problem:
            app.say(problem.message)
            return
        blocks = fix_blocks(result)
        body = [md.fence("\n".join(b), "text") for b in blocks]
        text = "\n\n".join(body) or md.escape(fix_nothing(result, scope.label))
        app.push_screen(AnswerScreen(f"# deja fix\n\n{text}"))

    app.push_screen(PromptScreen("Paste the error:", "Error: …"), chosen)


def ask_blame(app: DejaApp) -> None:
    from .screens import AnswerScreen, PromptScreen  # Textual's Markdown widget: when first asked

    def chosen(path: str | None) -> None:
        if not path or not path.strip():
            return
        try:
            events = app.history.file_history(path.strip(), cwd=app.cwd)
        except DejaError as error:
            app.say(error.message)
            return
        app.push_screen(AnswerScreen(md.file_history(path.strip(), events, app.clock())))

    app.push_screen(PromptScreen("A file's history: which path?", "src/app.py"), chosen)


def help_markdown(bindings: Sequence[BindingType]) -> str:
    rows = ["# Keys", "", "| key | does |", "|---|---|"]
    for binding in bindings:
        if isinstance(binding, tuple) or not getattr(binding, "description", ""):
            continue
        rows.append(f"| `{binding.key}` | {binding.description} |")
    rows += [
        "",
        "Typing searches as you type (the syntax of `deja search`); Enter or ↓ moves to the hits,",
        "Enter opens the session at the hit's turn (n/p page it), Esc goes back. The mouse works.",
    ]
    return "\n".join(rows)


def launch(plan: Launch) -> int:
    """Run resume's or hand off's command in this terminal, after the screen closed."""
    program = shutil.which(plan.argv[0])
    if program is None:
        print(f"deja: cn is not on PATH; run it yourself:\n{plan.line}")
        return 1
    if program.lower().endswith((".cmd", ".bat")) and not all(map(_PLAIN.fullmatch, plan.argv)):
        # cmd.exe re-parses a batch file's arguments: no quoting keeps `&` or `%` in them inert.
        print(f"deja: cn is a batch file here; run it yourself:\n{plan.line}")
        return 1
    print(plan.line, flush=True)
    return subprocess.run([program, *plan.argv[1:]], cwd=plan.cwd, check=False).returncode
