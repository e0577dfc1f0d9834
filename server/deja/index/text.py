"""A record's searchable text, kept once. A command's text is its command line and its output,
a tool call's its name, arguments and output, a read's the tool and the path, an edit's the
tool, the path, its hunk and its output: `records` holds those columns already, so
`records.body` stays NULL for them and the view `record_texts` (schema.py) makes the text from
the columns. Whether a record's text is made that way is decided by SQLite itself at insert
time (`BODY_SQL` compares the expression with the text; an edit of several hunks, or one whose
text was clipped, keeps its own), so the view gives back exactly what FTS5 indexed: an
external-content table's delete reads it again."""

from __future__ import annotations


def _edit_body(tool: str, path: str, hunks: str, output: str) -> str:
    """tools.py's edit text for an edit of at most one hunk: `TOOL PATH`, the replaced and the
    written text (each when not empty), the output, trailing newlines dropped."""
    replaced = f"coalesce(json_extract({hunks}, '$[0][0]'), '')"
    written = f"coalesce(json_extract({hunks}, '$[0][1]'), '')"
    joined = (
        f"CASE WHEN {replaced} != '' AND {written} != '' THEN {replaced} || char(10) || {written}"
        f" ELSE {replaced} || {written} END"
    )
    return (
        f"CASE WHEN coalesce(json_array_length({hunks}), 0) <= 1 THEN rtrim({tool} || ' ' ||"
        f" {path} || char(10) || {joined} || char(10) || {output}, char(10)) END"
    )


def derived_body(prefix: str = "") -> str:
    """The SQL expression of a record's text from its other columns (NULL for roles that have
    none): `prefix` is how the columns are named (`:` for an insert's named parameters)."""
    role, tool, args, output, path, hunks = (
        f"{prefix}{name}" for name in ("role", "tool", "args", "output", "path", "hunks")
    )
    return (
        f"CASE {role} WHEN 'command' THEN {args} || char(10) || {output}"
        f" WHEN 'tool' THEN {tool} || ' ' || {args} || char(10) || {output}"
        f" WHEN 'read' THEN {tool} || ' ' || {path}"
        f" WHEN 'edit' THEN {_edit_body(tool, path, hunks, output)} END"
    )


# The value stored in `records.body` on insert: NULL when the view makes the same text.
BODY_SQL = f"CASE WHEN {derived_body(':')} IS :body THEN NULL ELSE :body END"
