"""A record's searchable text, kept once. A command's text is its command line and its output,
a tool call's its name, arguments and output, a read's the tool and the path, an edit's the
tool, the path, its hunks and its output: `records` holds those columns already, so
`records.body` stays NULL for them and the view `record_texts` (schema.py) makes the text from
the columns. Whether a record's text is made that way is decided when its row is made
(`insert_rows.py`) by `made_text`, the view's rule in Python (`derived_body` is its SQL;
`tests/index/test_rows.py` holds the two equal), so the view gives back exactly what FTS5
indexed: an external-content table's delete reads it again. An edit of many hunks, or one whose
text was clipped, keeps its own. Long outputs, hunks and texts are stored packed (pack.py): the view
reads them through `unpack`."""

from __future__ import annotations

from collections.abc import Sequence

from .pack import as_text

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:  # the search path loads this module (schema.py), not the reader's types
    from deja.continue_store import Hunk

# Edits of up to this many hunks have their text made (most have one; a MultiEdit a few).
_MADE_HUNKS = 4


def _edit_body(tool: str, path: str, hunks: str, output: str) -> str:
    """tools.py's edit text for an edit of at most `_MADE_HUNKS` hunks: `TOOL PATH`, each hunk's
    replaced and written text that is not empty, one a line, the output, trailing newlines
    dropped. Each part comes with a newline before it, the first one cut off by `substr`."""
    parts = " || ".join(
        f"coalesce(char(10) || nullif(json_extract({hunks}, '$[{n}][{side}]'), ''), '')"
        for n in range(_MADE_HUNKS)
        for side in (0, 1)
    )
    return (
        f"CASE WHEN coalesce(json_array_length({hunks}), 0) <= {_MADE_HUNKS} THEN rtrim({tool}"
        f" || ' ' || {path} || char(10) || substr({parts}, 2) || char(10) || {output}, char(10))"
        " END"
    )


def derived_body(prefix: str = "", packed: bool = True) -> str:
    """The SQL expression of a record's text from its other columns (NULL for roles that have
    none): `prefix` is how the columns are named (`:` for an insert's named parameters), and
    `packed` whether output and hunks are read as stored (through `unpack`) or are texts."""
    role, tool, args, path = (f"{prefix}{name}" for name in ("role", "tool", "args", "path"))
    output, hunks = (
        as_text(f"{prefix}{name}") if packed else f"{prefix}{name}" for name in ("output", "hunks")
    )
    return (
        f"CASE {role} WHEN 'command' THEN {args} || char(10) || {output}"
        f" WHEN 'tool' THEN {tool} || ' ' || {args} || char(10) || {output}"
        f" WHEN 'read' THEN {tool} || ' ' || {path}"
        f" WHEN 'edit' THEN {_edit_body(tool, path, hunks, output)} END"
    )


# What the view gives: the record's own text, else the one made from its columns.
VIEW_BODY_SQL = f"coalesce({as_text('body')}, {derived_body()})"


def made_text(
    role: str,
    tool: str | None,
    args: str | None,
    output: str | None,
    path: str | None,
    hunks: Sequence[Hunk],
) -> str | None:
    """What `derived_body` gives for a record's columns (`hunks` as `rows.hunks_json` stores
    them; None where SQL gives NULL), computed where the rows are made: SQLite evaluating it in
    the insert (nine `json_extract`s of an edit's hunks) cost the writer's time."""
    if role == "command":
        return None if args is None or output is None else f"{args}\n{output}"
    if role == "tool":
        return None if None in (tool, args, output) else f"{tool} {args}\n{output}"
    if role == "read":
        return None if tool is None or path is None else f"{tool} {path}"
    if role != "edit" or len(hunks) > _MADE_HUNKS or None in (tool, path, output):
        return None
    sides = [side for hunk in hunks for side in (hunk.replaced, hunk.written) if side]
    if any("\0" in side for side in sides):
        return None  # SQLite's json_extract cuts a string at an escaped NUL: keep the text
    made = "\n".join(sides)
    return f"{tool} {path}\n{made}\n{output}".rstrip("\n")
