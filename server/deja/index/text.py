"""A record's searchable text, kept once. A command's text is its command line and its output,
a tool call's its name, arguments and output, a read's the tool and the path: `records` holds
those columns already, so `records.body` stays NULL for them and the view `record_texts`
(schema.py) makes the text from the columns. Whether a record's text is made that way is decided
by SQLite itself at insert time (`BODY_SQL` compares the expression with the text), so the view
gives back exactly what FTS5 indexed: an external-content table's delete reads it again."""

from __future__ import annotations


def derived_body(prefix: str = "") -> str:
    """The SQL expression of a record's text from its other columns (NULL for roles that have
    none): `prefix` is how the columns are named (`:` for an insert's named parameters)."""
    role, tool, args, output, path = (
        f"{prefix}{name}" for name in ("role", "tool", "args", "output", "path")
    )
    return (
        f"CASE {role} WHEN 'command' THEN {args} || char(10) || {output}"
        f" WHEN 'tool' THEN {tool} || ' ' || {args} || char(10) || {output}"
        f" WHEN 'read' THEN {tool} || ' ' || {path} END"
    )


# The value stored in `records.body` on insert: NULL when the view makes the same text.
BODY_SQL = f"CASE WHEN {derived_body(':')} IS :body THEN NULL ELSE :body END"
