"""Adding and removing one named entry of a top-level YAML list, leaving every other byte alone.

ruamel.yaml's round-trip loader parses the file and says where each key and list item sits;
the edit itself is made on the text, so other entries, comments, quoting, blank lines and line
endings stay exactly as they were (a dump of the whole document would re-indent and re-flow what
it cannot reproduce). Only the new entry is rendered, by ruamel, in the indentation the file
already uses. Every edit is checked by parsing the result: it must hold exactly the old data
plus (or minus) the entry, or nothing is written.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from deja.errors import DejaError

# The line breaks ruamel counts (YAML 1.1 adds NEL, LS and PS to CR, LF and CRLF).
_LINE = re.compile(r".*?(?:\r\n|[\r\n\x85\u2028\u2029])|.+\Z", re.DOTALL)
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")
_EMPTY_INLINE = re.compile(r"\[\s*\]")
_DASH_ALONE = re.compile(r"\s*-\s*(?:#.*)?")
DEFAULT_DASH = 2  # `  - name: …`, as Continue's documentation writes lists
DEFAULT_CONTENT = 2


class ConfigError(DejaError):
    """The file cannot be edited safely; one message for the user, nothing written."""


def _yaml() -> YAML:
    yaml = YAML()
    yaml.width = 4096  # never fold a long value
    return yaml


def load(text: str, name: str) -> Any:
    """The document, or ConfigError saying where the YAML broke."""
    try:
        return _yaml().load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = error.problem or error.context or "invalid YAML"
        raise ConfigError(f"{name} is not valid YAML: {problem}{where}") from None
    except YAMLError as error:
        raise ConfigError(f"{name} is not valid YAML: {error}") from None


def plain(value: Any) -> Any:
    """ruamel's round-trip types as plain dicts, lists and scalars, for comparing data."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _missing_break(text: str) -> str:
    """The line break the last line of `text` lacks ("" when it has one, or there is none).

    Edits are made on the text with it and it is taken off again, so a file that ended without
    a final line break still does, and uninstalling gives back its exact bytes."""
    return _newline(text) if text and not text.endswith(_BREAKS) else ""


def key_line(text: str, key: str, name: str = "config.yaml") -> str | None:
    """The line of top-level `key`, with its line break (None when there is no such key): what
    the edits below change on it can be compared and put back."""
    document = _mapping(load(text, name), name)
    if document is None or key not in document:
        return None
    line: str = _lines(text + _missing_break(text))[document.lc.key(key)[0]]
    return line


def _mapping(document: Any, name: str) -> CommentedMap | None:
    if document is None:
        return None
    if not isinstance(document, CommentedMap):
        raise ConfigError(f"{name} does not hold a mapping at its top level")
    return document


def _is_entry(item: Any, entry_name: str) -> bool:
    return isinstance(item, dict) and item.get("name") == entry_name


def _dash_line(lines: list[str], seq: CommentedSeq, index: int) -> tuple[int, int]:
    """The line of item `index`'s dash and the dash's column."""
    line, column = seq.lc.item(index)
    before = lines[line][:column]
    if before.strip():
        return line, before.rindex("-")
    while line > 0:  # `-` alone on a line, the item below it
        line -= 1
        if _DASH_ALONE.fullmatch(lines[line].rstrip("\r\n\x85\u2028\u2029")):
            return line, lines[line].index("-")
    raise ConfigError("cannot find a list item's dash")


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _key_end(lines: list[str], document: CommentedMap, key: str) -> int:
    """The line after the last line of `key`'s value (before any trailing blanks and comments,
    which belong to whatever follows)."""
    start = document.lc.key(key)[0]
    later = [document.lc.key(k)[0] for k in document if document.lc.key(k)[0] > start]
    end = min(later, default=len(lines))
    while end > start + 1 and _is_filler(lines[end - 1]):
        end -= 1
    return end


def _item_span(lines: list[str], document: CommentedMap, key: str, index: int) -> tuple[int, int]:
    seq = document[key]
    start, _ = _dash_line(lines, seq, index)
    if index + 1 < len(seq):
        end = _dash_line(lines, seq, index + 1)[0]
        while end > start + 1 and _is_filler(lines[end - 1]):
            end -= 1
        return start, end
    return start, _key_end(lines, document, key)


def _style(lines: list[str], document: CommentedMap | None, key: str) -> tuple[int, int]:
    """(dash column, content offset after the dash) of `key`'s list, else of any top-level
    block list in the file, else Continue's documented style."""
    if document is None:
        return DEFAULT_DASH, DEFAULT_CONTENT
    for candidate in [key, *document]:
        seq = document.get(candidate)
        if isinstance(seq, CommentedSeq) and len(seq) and not seq.fa.flow_style():
            line, dash = _dash_line(lines, seq, 0)
            content = seq.lc.item(0)[1]
            if seq.lc.item(0)[0] == line and content > dash:
                return dash, content - dash
    return DEFAULT_DASH, DEFAULT_CONTENT


def render_item(entry: dict[str, Any], dash: int, content: int, newline: str) -> list[str]:
    """`entry` as one block-list item: scalars quoted only where YAML needs it, lists inline."""
    item = CommentedMap()
    for key, value in entry.items():
        if isinstance(value, list):
            value = CommentedSeq(value)
            value.fa.set_flow_style()
        item[key] = value
    yaml = _yaml()
    yaml.indent(mapping=content, sequence=content, offset=0)
    out = io.StringIO()
    yaml.dump([item], out)
    return [" " * dash + line + newline for line in out.getvalue().splitlines()]


def _check(new_text: str, expected: Any, name: str, by_hand: str) -> str:
    """Parse the result: it must hold exactly the expected data."""
    try:
        ok = plain(load(new_text, name)) == expected
    except ConfigError:
        ok = False
    if not ok:
        raise ConfigError(
            f"{name} has a layout Deja cannot edit without touching the rest; {by_hand}"
        )
    return new_text


def _add_by_hand(key: str, entry: dict[str, Any]) -> str:
    return f"add this entry to {key} by hand:\n" + "".join(render_item(entry, 2, 2, "\n"))


def set_entry(text: str, key: str, entry: dict[str, Any], name: str = "config.yaml") -> str:
    """`text` with `entry` (found again by its `name`) in the top-level list `key`: added at the
    end of the list, updated in place when present, the list created when missing."""
    document = _mapping(load(text, name), name)
    expected: dict[str, Any] = plain(document) if document is not None else {}
    current = expected.get(key)
    if current is not None and not isinstance(current, list):
        raise ConfigError(f"{key} in {name} is not a list; add the {entry['name']!r} entry by hand")
    items: list[Any] = current or []
    found = next((i for i, item in enumerate(items) if _is_entry(item, entry["name"])), None)
    if found is None:
        merged = entry
        expected[key] = [*items, entry]
    else:
        if all(items[found].get(k) == v for k, v in entry.items()):
            return text
        merged = {**items[found], **entry}  # keys the user added to the entry stay
        expected[key] = [*items[:found], merged, *items[found + 1 :]]
    added = _missing_break(text)
    placed = _place(text + added, document, key, merged, found, name).removesuffix(added)
    return _check(placed, expected, name, _add_by_hand(key, entry))


def _place(
    text: str,
    document: CommentedMap | None,
    key: str,
    entry: dict[str, Any],
    found: int | None,
    name: str,
) -> str:
    """The text with `entry` rendered where it belongs (in place of item `found` if given)."""
    lines = _lines(text)
    newline = _newline(text)
    dash, content = _style(lines, document, key)

    def rendered(at: int = dash) -> list[str]:
        return render_item(entry, at, content, newline)

    if document is None or key not in document:
        return "".join([*lines, f"{key}:{newline}", *rendered()])
    seq = document[key]
    key_line, key_column = document.lc.key(key)
    if seq is None:
        # `key:` with nothing after it (or only a comment): the items go on the lines below.
        after = lines[key_line].split(":", 1)[1].strip()
        if after and not after.startswith("#"):
            raise ConfigError(f"{key} in {name} is null; add the {entry['name']!r} entry by hand")
        below = rendered(max(dash, key_column + DEFAULT_DASH))
        return "".join(lines[: key_line + 1] + below + lines[key_line + 1 :])
    if seq.fa.flow_style() or not len(seq):
        value_line, value_column = document.lc.value(key)
        line = lines[value_line]
        empty = _EMPTY_INLINE.match(line, value_column)
        if len(seq) or empty is None:
            raise ConfigError(
                f"{key} in {name} is written inline ([…]); add the {entry['name']!r} entry by hand"
            )
        # `key: []`: the empty inline list becomes a block list holding the entry.
        lines[value_line] = line[:value_column].rstrip() + line[empty.end() :]
        return "".join(lines[: value_line + 1] + rendered() + lines[value_line + 1 :])
    if found is not None:
        start, end = _item_span(lines, document, key, found)
        return "".join(lines[:start] + rendered(_dash_line(lines, seq, found)[1]) + lines[end:])
    end = _item_span(lines, document, key, len(seq) - 1)[1]
    return "".join(lines[:end] + rendered() + lines[end:])


def remove_entry(
    text: str,
    key: str,
    entry_name: str,
    name: str = "config.yaml",
    key_was: tuple[str | None, str] | None = None,
) -> str:
    """`text` without the entry called `entry_name` in the list `key`. Unchanged when there is no
    such entry. When the entry was all the list held, `key_was` says what the key's line was
    before the entry came (None: there was no key) and the line that adding it left: if the key's
    line is still that one, it goes back to what it was. Otherwise the key goes too."""
    document = _mapping(load(text, name), name)
    if document is None or not isinstance(document.get(key), CommentedSeq):
        return text
    seq = document[key]
    found = next((i for i, item in enumerate(seq) if _is_entry(item, entry_name)), None)
    if found is None:
        return text
    added = _missing_break(text)
    lines = _lines(text + added)
    expected = plain(document)
    expected[key] = [item for i, item in enumerate(expected[key]) if i != found]
    if seq.fa.flow_style():
        raise ConfigError(f"{key} in {name} is written inline ([…]); remove {entry_name!r} by hand")
    start, end = _item_span(lines, document, key, found)
    del lines[start:end]
    if len(seq) == 1:
        key_line, key_column = document.lc.key(key)
        head = lines[key_line]
        restored = _key_was(key_was, head, key, name)
        if restored is not None:
            line_before, value = restored
            if line_before is None:
                del lines[key_line]
                del expected[key]
            else:
                lines[key_line] = line_before
                expected[key] = value
        elif head.strip() == f"{key}:":
            # The list held only the entry, as when install created it: the key goes too.
            del lines[key_line]
            del expected[key]
        else:
            # A comment stays on the key's line, which must then say the list is empty.
            colon = head.index(":", key_column) + 1
            lines[key_line] = f"{head[:colon]} []{head[colon:]}"
    by_hand = f"remove the {entry_name!r} entry of {key} by hand"
    return _check("".join(lines).removesuffix(added), expected, name, by_hand)


def _key_was(
    key_was: tuple[str | None, str] | None, head: str, key: str, name: str
) -> tuple[str | None, Any] | None:
    """(the line to put back, None to drop the key; the key's value then) when the key's line
    `head` is still the one adding the entry left and the line before held an empty list."""
    if key_was is None or head != key_was[1]:
        return None
    line_before = key_was[0]
    if line_before is None:
        return None, None
    try:
        data = plain(load(line_before, name))
    except ConfigError:
        return None
    if not isinstance(data, dict) or list(data) != [key] or data[key] not in (None, []):
        return None
    return line_before, data[key]
