"""The screens over the search screen: a session read whole (paged, opened at a turn), a
markdown answer (help, `deja fix`, blame), a one-line prompt, and a yes/no confirmation."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Collapsible, Footer, Input, Label, Markdown, Static

from deja import render_markdown as md
from deja.query.session_page import SessionPage

from .turn import Block, turn_blocks


class MarkdownText(Static):
    """Markdown drawn by Rich in one widget (Textual's Markdown widget makes one per block:
    a page of turns would be hundreds to style and lay out)."""

    def __init__(self, source: str, dark: bool = True) -> None:
        from rich.markdown import Markdown as RichMarkdown

        super().__init__(RichMarkdown(source, code_theme="monokai" if dark else "friendly"))
        self.source = source


def turn_widgets(blocks: list[Block], dark: bool = True) -> list[Widget]:
    """A turn's blocks, each run of unfolded ones one widget, reasoning folded."""
    widgets: list[Widget] = []
    run: list[str] = []
    for block in blocks:
        if block.folded:
            if run:
                widgets.append(MarkdownText("\n\n".join(run), dark))
                run = []
            text = MarkdownText(block.markdown, dark)
            widgets.append(Collapsible(text, title=block.title, collapsed=True))
        else:
            run.append(block.markdown)
    if run:
        widgets.append(MarkdownText("\n\n".join(run), dark))
    return widgets


class SessionScreen(Screen[None]):
    """A page of a session's turns (the session view's pages), scrolled to the turn opened."""

    BINDINGS = [  # noqa: RUF012 (Textual's declaration)
        Binding("escape,q", "app.pop_screen", "back"),
        Binding("n,right_square_bracket", "page(1)", "next page"),
        Binding("p,left_square_bracket", "page(-1)", "previous page"),
    ]

    def __init__(
        self,
        load: Callable[[int | None, int | None], SessionPage],
        at_turn: int | None,
        now: float | None = None,
    ) -> None:
        super().__init__()
        self.load, self.now = load, now
        self.page = load(None, at_turn)

    def compose(self) -> ComposeResult:
        yield Static(id="where")
        yield VerticalScroll(id="turns")
        yield Footer()

    async def on_mount(self) -> None:
        await self.show_page()

    async def show_page(self) -> None:
        page = self.page
        last = page.offset + len(page.turns)
        self.query_one("#where", Static).update(
            f"turns {page.offset + 1 if page.turns else 0}–{last} of {page.total_turns}"
            " · n/p: next/previous page · Esc: back"
        )
        turns = self.query_one("#turns", VerticalScroll)
        await turns.remove_children()
        header = "\n".join(md.session_header(page.session, self.now))
        widgets: list[Widget] = [MarkdownText(header, self.app.current_theme.dark)]
        target: Widget | None = None
        for turn in page.turns:
            blocks = turn_widgets(turn_blocks(turn), self.app.current_theme.dark)
            if turn.turn == page.at_turn:
                target = blocks[0]
                target.add_class("opened")
            widgets += blocks
        if not page.turns:
            widgets.append(MarkdownText("_No turns recorded._"))
        await turns.mount_all(widgets)
        if target is not None:
            turns.scroll_to_widget(target, animate=False, top=True, immediate=True)
        turns.focus()

    async def action_page(self, step: int) -> None:
        limit = max(len(self.page.turns), 1)
        offset = self.page.offset + step * limit
        if offset < 0 or offset >= self.page.total_turns:
            self.notify("no more turns that way")
            return
        self.page = self.load(offset, None)
        await self.show_page()


class AnswerScreen(ModalScreen[None]):
    """Markdown shown over the search screen until Esc (help, a fix, a file's history)."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "back")]  # noqa: RUF012

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="answer"):
            yield Markdown(self.markdown)
        yield Footer()


class PromptScreen(ModalScreen[str | None]):
    """One line asked for (a pasted error, a path, how far back): Enter gives it, Esc nothing."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012

    def __init__(self, question: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.question, self.placeholder, self.value = question, placeholder, value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.question)
            yield Input(value=self.value, placeholder=self.placeholder, id="answer-line")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """`y` runs what the question names; anything else (`n`, Esc) does not."""

    BINDINGS = [  # noqa: RUF012
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question)
            yield Label("y: yes · n or Esc: no")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
