"""The history screen: a query line that searches as you type, hits grouped by session, and the
selected hit's turn in a preview. It asks `History` what every door asks, renders what the
other doors render (`hits.py`, `turn.py`), and never waits for the index: a pass runs in a
worker thread while the screen answers from what is indexed.

Long-running like the sidecar, it searches by meaning with the deep model's vectors that an
editor or MCP server made (`semantic.allow_deep` while it is open; the model loads only when a
search by meaning asks). It makes none itself: a pass here is the index's, not the deep one."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from deja import semantic
from deja.errors import DejaError
from deja.query import SEARCH_ROLES, History, Scope, SearchQuery
from deja.query.handoff import Launch

from . import actions
from .hits import Group, group_hits, group_line, hit_line, session_groups
from .style import CSS as STYLE
from .turn import preview_markdown

HITS = 30  # hits asked for per keystroke: a screenful of groups, no total counted
RECENT = 40  # sessions listed before anything is typed
ROLES: tuple[str | None, ...] = (None, *SEARCH_ROLES)


class PassSaid(Message):
    """What the pass's worker thread has to say: progress, or its end (posting never blocks)."""

    def __init__(self, text: str, *, ended: bool) -> None:
        super().__init__()
        self.text = text
        self.ended = ended


def dark_background(env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """The terminal's background as `COLORFGBG` says (`15;0`: light on dark); dark when unset."""
    value = env.get("COLORFGBG", "").rpartition(";")[2]
    return not value.isdigit() or int(value) in (0, 1, 2, 3, 4, 5, 6, 8)


class DejaApp(App[Launch | None]):
    TITLE = "deja"
    CSS = STYLE
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "open session", show=False),
        Binding("slash", "focus_query", "search"),
        Binding("w", "toggle_scope", "workspace/all"),
        Binding("o", "cycle_role", "role"),
        Binding("s", "since", "since"),
        Binding("r", "resume", "resume"),
        Binding("h", "handoff", "hand off"),
        Binding("c", "copy", "copy"),
        Binding("f", "fix", "fix"),
        Binding("b", "blame", "blame"),
        Binding("question_mark", "help", "keys"),
        Binding("q", "quit", "quit"),
        # Escape then q typed quickly reach Textual as one alt+q: back out, then quit, is quit.
        Binding("alt+q", "quit", "quit", show=False),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        history: History,
        *,
        query: str = "",
        cwd: str | None = None,
        all_workspaces: bool = False,
        workspace: str | None = None,
        role: str | None = None,
        since: float | None = None,
        index: bool = True,
        clock: Callable[[], float] = time.time,
        dark: bool | None = None,
    ) -> None:
        super().__init__()
        self.history = history
        self.first_query = query
        self.cwd = cwd or os.getcwd()
        self.all_workspaces = all_workspaces
        self.workspace = workspace
        self.role = role
        self.since = since
        self.since_text = ""
        self.clock = clock
        self.run_index = index
        self.rows: dict[str, tuple[str, int | None]] = {}
        self.asked = 0  # searches started (one a keystroke)
        self.searches = 0  # searches answered; the others a later keystroke cancelled
        self.indexing = False
        self.preview_text = ""  # the markdown the preview shows
        self.lines: dict[str, str] = {}  # what the one-line Statics show
        self.previewed: tuple[str, int | None] | None = None  # the turn it shows
        self.theme = (
            "textual-dark" if (dark_background() if dark is None else dark) else ("textual-light")
        )

    def compose(self) -> ComposeResult:
        yield Static(id="scope")
        yield Input(
            value=self.first_query,
            placeholder='search: words, "a phrase", prefix*, -not, a OR b',
            id="query",
        )
        with Horizontal(id="main"):
            yield OptionList(id="hits")
            with VerticalScroll(id="preview"):
                yield Static(id="preview-text")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        semantic.allow_deep()
        self.query_one("#query", Input).focus()
        self.refresh_search()
        if self.run_index:
            self.index_pass()

    def on_unmount(self) -> None:
        semantic.end_deep()

    # Searching ------------------------------------------------------------------------------

    def scope(self) -> tuple[Scope, list[str]]:
        choice = self.history.scope_for(
            all_workspaces=self.all_workspaces, workspace=self.workspace, cwd=self.cwd
        )
        return choice.scope, list(choice.notes)

    def refresh_search(self) -> None:
        self.search(self.query_one("#query", Input).value)

    @on(Input.Changed, "#query")
    def typed(self, event: Input.Changed) -> None:
        self.search(event.value)

    @on(Input.Submitted, "#query")
    def submitted(self) -> None:
        self.query_one("#hits", OptionList).focus()

    @property
    def superseded(self) -> int:
        """Searches a later keystroke cancelled before they answered."""
        return self.asked - self.searches

    def search(self, text: str) -> None:
        self.asked += 1
        self.answer(text)

    @work(exclusive=True, group="search")
    async def answer(self, text: str) -> None:
        await asyncio.sleep(0)  # a later keystroke's search cancels this one while it waits here
        self.searches += 1
        scope, notes = self.scope()
        self.show_scope(scope)
        try:
            groups = self.groups(text, scope, notes)
        except DejaError as error:
            self.say(error.message)
            return
        self.show_groups(groups)

    def groups(self, text: str, scope: Scope, notes: list[str]) -> list[Group]:
        if not text.strip():
            self.say(" · ".join(notes))
            return session_groups(self.history.sessions(scope, limit=RECENT))
        query = SearchQuery(
            text=text, scope=scope, role=self.role, since=self.since, limit=HITS,
            cwd=self.cwd, count_all=False,
        )  # fmt: skip
        result = self.history.search(query, scope_notes=notes)
        nothing = [] if result.hits else [f"nothing found for {text!r}"]
        self.say(" · ".join([*nothing, *result.notes]))
        summaries = self.history.summaries({hit.session_id for hit in result.hits})
        return group_hits(result.hits, summaries)

    def show_scope(self, scope: Scope) -> None:
        role = self.role or "any"
        since = self.since_text or "any time"
        self.line("#scope", f"[b]deja[/b] · {scope.label} · role: {role} · since: {since}")

    def show_groups(self, groups: list[Group]) -> None:
        hits = self.query_one("#hits", OptionList)
        now = self.clock()
        self.rows = {}
        options: list[Option] = []
        for number, group in enumerate(groups):
            key = f"s{number}"
            self.rows[key] = (group.session_id, group.hits[0].turn if group.hits else None)
            options.append(Option(group_line(group, now), id=key, disabled=bool(group.hits)))
            for place, hit in enumerate(group.hits):
                self.rows[f"{key}h{place}"] = (hit.session_id, hit.turn)
                options.append(Option(hit_line(hit), id=f"{key}h{place}"))
        hits.set_options(options)
        if options:
            hits.highlighted = next(i for i, o in enumerate(options) if not o.disabled)
        else:
            self.previewed = None
            self.show_preview("")

    def selected(self) -> tuple[str, int | None] | None:
        hits = self.query_one("#hits", OptionList)
        if hits.highlighted is None:
            return None
        option = hits.get_option_at_index(hits.highlighted)
        return self.rows.get(option.id or "")

    @on(OptionList.OptionHighlighted, "#hits")
    def highlighted(self) -> None:
        chosen = self.selected()
        # The same turn as the preview shows (a keystroke that keeps the best hit): no redraw.
        if chosen is not None and chosen != self.previewed:
            self.previewed = chosen
            self.preview(*chosen)

    @on(OptionList.OptionSelected, "#hits")
    def chosen(self) -> None:
        self.action_open()

    @work(exclusive=True, group="preview")
    async def preview(self, session_id: str, turn: int | None) -> None:
        await asyncio.sleep(0)  # a quicker move down the list cancels this one
        try:
            page = self.history.session_page(session_id, offset=0, limit=1, at_turn=turn)
        except DejaError as error:
            self.say(error.message)
            return
        self.show_preview(preview_markdown(page.turns))

    def show_preview(self, text: str) -> None:
        """One Rich renderable in one widget: a keystroke redraws it without a new layout."""
        self.preview_text = text
        from rich.markdown import Markdown  # markdown-it and pygments: after the first screen

        theme = "monokai" if self.current_theme.dark else "friendly"
        self.query_one("#preview-text", Static).update(Markdown(text, code_theme=theme))
        self.query_one("#preview", VerticalScroll).scroll_home(animate=False)

    # Indexing -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="index")
    def index_pass(self) -> None:
        # Messages, not `call_from_thread`: that waits for the screen's loop, which no longer
        # runs once `q` is pressed, and the process would hang on its own pass.
        worker = get_current_worker()
        self.post_message(PassSaid("indexing: looking at the store…", ended=False))

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise actions.PassStopped
            self.post_message(PassSaid(f"indexing: {done}/{total} sessions…", ended=False))

        message = actions.run_pass(self.history, progress)
        if not worker.is_cancelled:
            self.post_message(PassSaid(message, ended=True))

    def on_pass_said(self, said: PassSaid) -> None:
        if said.ended:
            self.indexed(said.text)
        else:
            self.say_progress(said.text)

    def say_progress(self, text: str) -> None:
        self.indexing = True
        self.line("#status", text)

    def indexed(self, message: str) -> None:
        self.indexing = False
        self.previewed = None  # the pass may have changed the turn shown: draw it again
        self.say(message)
        self.refresh_search()

    def say(self, text: str) -> None:
        self.line("#status", text)

    def line(self, where: str, text: str) -> None:
        """A one-line Static changed only when its text does: an update lays the screen out
        again, which a keystroke should not pay for nothing."""
        if self.lines.get(where) != text:
            self.lines[where] = text
            self.query_one(where, Static).update(text)

    # Keys -----------------------------------------------------------------------------------

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_open(self) -> None:
        chosen = self.selected()
        if chosen is None:
            self.say("nothing selected")
            return
        session_id, turn = chosen
        from .screens import SessionScreen  # Textual's Markdown widget: when first opened

        try:
            screen = SessionScreen(actions.pager(self.history, session_id), turn, self.clock())
        except DejaError as error:
            self.say(error.message)
            return
        self.push_screen(screen)

    def action_toggle_scope(self) -> None:
        self.all_workspaces = not self.all_workspaces
        self.refresh_search()

    def action_cycle_role(self) -> None:
        self.role = ROLES[(ROLES.index(self.role) + 1) % len(ROLES)]
        self.refresh_search()

    def action_since(self) -> None:
        actions.ask_since(self)

    def action_resume(self) -> None:
        actions.confirm_launch(self, "resume")

    def action_handoff(self) -> None:
        actions.confirm_launch(self, "handoff")

    def action_copy(self) -> None:
        actions.copy_restore(self)

    def action_fix(self) -> None:
        actions.ask_fix(self)

    def action_blame(self) -> None:
        actions.ask_blame(self)

    def action_help(self) -> None:
        from .screens import AnswerScreen

        self.push_screen(AnswerScreen(actions.help_markdown(self.BINDINGS)))
