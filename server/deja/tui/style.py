"""The screen's stylesheet (Textual CSS), kept in Python so the package needs no data files."""

CSS = """
#scope { height: 1; padding: 0 1; background: $boost; }
#query { margin: 0; }
#main { height: 1fr; }
#hits {
    width: 45%; min-width: 30; border: none; text-wrap: nowrap; text-overflow: ellipsis;
}
#preview { width: 1fr; padding: 0 1; border-left: solid $primary-background; }
#status { height: 1; padding: 0 1; color: $text-muted; }
#dialog {
    width: 80%; max-width: 100; height: auto; padding: 1 2;
    border: thick $primary; background: $surface;
}
PromptScreen, ConfirmScreen { align: center middle; }
AnswerScreen { align: center middle; }
#answer { width: 90%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
#where { height: 1; padding: 0 1; background: $boost; }
#turns { padding: 0 1; }
Markdown { margin: 0; padding: 0; }
.opened { background: $boost; }
"""
