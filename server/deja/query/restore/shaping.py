"""Text shaping for the transcript: head-and-tail, and the collapse rules that
let a preview say what is there without spending room on it."""

from __future__ import annotations

import re

from deja.one_line import one_line

PREVIEW_CHARS = 200  # an assistant item's preview


def head_tail(text: str, limit: int, marker: str = " […] ") -> str:
    """Keep the head (two thirds) and the tail (one third), not splitting words."""
    if len(text) <= limit:
        return text
    head_len = max(1, limit * 2 // 3)
    tail_len = max(1, limit - head_len)
    head, tail = text[:head_len], text[-tail_len:]
    space = head.rfind(" ", head_len // 2)
    if space > 0:
        head = head[:space]
    space = tail.find(" ", 0, tail_len // 2)
    if space >= 0:
        tail = tail[space + 1 :]
    return f"{head.rstrip()}{marker}{tail.lstrip()}"


def indent(text: str, prefix: str) -> list[str]:
    """`text`'s lines with `prefix`; blank lines stay empty."""
    return [prefix + line if line.strip() else "" for line in text.split("\n")]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\S")


def collapse(text: str) -> list[str]:
    """Lines of `text` with code blocks, tables and lists (two items or more) each replaced by one
    marker line: a preview says what is there without spending room on it."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$")
            i += 1
            while i < len(lines) and not closing.match(lines[i]):
                i += 1
            out.append("[Code]")
            i += 1  # past the closing fence (or the end: an unclosed block runs to the end)
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                i += 1
            out.append("[Table]")
            continue
        if _LIST_ITEM.match(line):
            end, items = i, 0
            while end < len(lines):
                if _LIST_ITEM.match(lines[end]):
                    items += 1
                elif not (lines[end].strip() and lines[end][:1].isspace()):
                    break  # a continuation line is indented; anything else ends the list
                end += 1
            if items >= 2:
                out.append("[List]")
                i = end
                continue
        out.append(line)
        i += 1
    return out


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    return head_tail(one_line(" ".join(collapse(text))), limit)
