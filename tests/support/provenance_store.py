"""A project whose file a past Write created and a later Edit changed, then a person edited by
hand: the store every door's provenance test reads (CLI, MCP, the sidecar)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.support.storebuilder import assistant, call, session_doc, user, write_session

WRITER = "a11ce000-1111-4aaa-8bbb-000000000001"
EDITOR = "b0b00000-2222-4aaa-8bbb-000000000002"
WRITER_TITLE = "Scaffold the pricing module"
EDITOR_TITLE = "Round prices to cents"
# 60 functions of three lines and a blank: 240 lines, every one of them written by the Write.
WRITTEN = "".join(
    f"def price_{n}(amount):\n    rate = {n + 1} / 100\n    return amount * rate\n\n"
    for n in range(60)
)
EDITED_FROM = "def price_7(amount):\n    rate = 8 / 100\n    return amount * rate\n"
EDITED_TO = "def price_7(amount):\n    rate = 8 / 100\n    return round(amount * rate, 2)\n"
EDITED_LINE = 31  # 1-based: the `return round(…)` line of price_7
HAND_LINE = 98  # 1-based: `rate = 25 / 100`, which a person changed by hand
HAND_TEXT = "    rate = 25 / 100  # promotional"


def current_text() -> str:
    """The file on disk now: the Write, the Edit, one line changed by hand."""
    lines = WRITTEN.replace(EDITED_FROM, EDITED_TO).split("\n")
    assert lines[HAND_LINE - 1] == "    rate = 25 / 100"
    lines[HAND_LINE - 1] = HAND_TEXT
    return "\n".join(lines)


@dataclass(frozen=True)
class Project:
    store: Path
    home: Path
    workspace: Path

    @property
    def file(self) -> Path:
        return self.workspace / "pricing.py"


def build(base: Path) -> Project:
    project = Project(base / "continue", base / "deja-home", base / "shop")
    project.workspace.mkdir(parents=True)
    project.file.write_text(current_text())
    path = str(project.file)
    write_session(
        project.store,
        session_doc(
            WRITER,
            [
                user("create a pricing module with sixty price functions"),
                assistant("", [call("Write", {"file_path": path, "content": WRITTEN})]),
            ],
            title=WRITER_TITLE,
            workspace=project.workspace.as_uri(),
        ),
        date_created="1750262400000",
    )
    edit = {"file_path": path, "old_string": EDITED_FROM, "new_string": EDITED_TO}
    write_session(
        project.store,
        session_doc(
            EDITOR,
            [
                user("price_7 must round to cents"),
                assistant("", [call("Edit", edit, output="edited")]),
            ],
            title=EDITOR_TITLE,
            workspace=project.workspace.as_uri(),
        ),
        date_created="1750266000000",
    )
    return project
