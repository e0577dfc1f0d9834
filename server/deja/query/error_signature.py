"""An error's signature: the lines of a failed command's output that say what went wrong, with
the noise that differs from one run to the next masked (numbers, hex, paths' folders, line
numbers, temporary names, timestamps), so the same error seen again matches and different errors
stay apart. Pure."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

MAX_LINES = 8
LINE_CHARS = 240
# A line is masked from its first this many characters (a minified bundle's line can be huge).
RAW_CHARS = 1_000
# Two signatures this similar (weighted Jaccard of their words) are the same error, reworded.
CLOSE = 0.6

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# What Continue puts before a failed call's own output, whole (as stored) or in part (as `cn`
# shows it: `Error (exit code 3): oops`), and before stderr appended to a call that passed: the
# asked text and the stored one lose the same words.
_PREFIX = re.compile(
    r"^(?:Error executing tool \w+: )?(?:Error \(exit code -?\d+\):? ?)?"
    r"(?:Command failed with exit code -?\d+[.:]? ?)?(?:Stderr: )?"
)
_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?\b"
        ),
        "<time>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I), "<hex>"),
    # a path's folders (the file's name says which file; where it lives differs per machine)
    # (starting only where a path can start: tried inside a long word, it would be quadratic)
    (re.compile(r"(?<![\w.@+~:-])(?:[A-Za-z]:)?(?:[\w.@+~-]*[/\\])+(?=[\w.@+-])"), "<path>/"),
    (re.compile(r"\b(?:tmp|temp)[\w-]{3,}|\bpytest-\d+\b|\b[\w-]*\.tmp\b", re.I), "<tmp>"),
    (re.compile(r"\b(line|col(?:umn)?) \d+", re.I), r"\1 <n>"),
    (re.compile(r"(?<=[\w>)]):\d+(?::\d+)?\b"), ":<n>"),
    # a number, its unit kept (`12.5ms` → `<n>ms`)
    (re.compile(r"(?<![\w<.])[-+]?\d+(?:\.\d+)*(?=(?:[a-zµ%]{1,3})?(?![\w>]))", re.I), "<n>"),
)
# Lines that say something failed (the rest of an output is context that varies).
_ERROR_WORDS = re.compile(
    r"error|exception|traceback|fail|fatal|panic|cannot|can't|could not|couldn't|unable|"
    r"not found|no such|denied|refused|undefined|unexpected|invalid|missing|timed? ?out|"
    r"abort|segmentation|not recognized|unknown|^E\s|✗|✘",
    re.IGNORECASE,
)
# Lines every failure of a kind shares: they would make unrelated errors look alike.
_GENERIC = {
    "traceback (most recent call last):",
    "during handling of the above exception, another exception occurred:",
    "the above exception was the direct cause of the following exception:",
    "error",
    "error:",
    "failed",
}
_WORD = re.compile(r"'[^'\s]{1,80}'|\"[^\"\s]{1,80}\"|`[^`\s]{1,80}`|[\w<>.-]+")


@dataclass(frozen=True, slots=True)
class Signature:
    """`lines`: the masked lines that say what failed; `key`: a short hash of them."""

    lines: tuple[str, ...]
    key: str
    words: tuple[tuple[str, float], ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def similarity(self, other: Signature) -> float:
        """1.0 for the same signature; a weighted Jaccard of the words otherwise (a quoted name
        or an identifier weighs more than a common word, so `No module named 'a'` and
        `No module named 'b'` stay apart)."""
        if self.key == other.key:
            return 1.0
        mine, theirs = dict(self.words), dict(other.words)
        if not mine or not theirs:
            return 0.0
        shared = sum(min(w, theirs[t]) for t, w in mine.items() if t in theirs)
        union = sum(mine.values()) + sum(theirs.values()) - shared
        return shared / union if union else 0.0

    def coverage(self, other: Signature) -> float:
        """How much of this signature's word weight `other` has too (0 unless 3+ words: a
        short text is contained in too much)."""
        mine, theirs = dict(self.words), dict(other.words)
        total = sum(mine.values())
        if len(mine) < 3 or not total:
            return 0.0
        return sum(min(w, theirs.get(t, 0.0)) for t, w in mine.items()) / total

    def may_be_in(self, text: str) -> bool:
        """A cheap test before computing `text`'s signature: at least half of this signature's
        unmasked word weight appears in it (no close signature has less)."""
        plain = [(word, weight) for word, weight in self.words if "<" not in word]
        need = 0.5 * sum(weight for _, weight in plain)
        lowered = text.lower()
        return sum(weight for word, weight in plain if word in lowered) >= need

    def close_to(self, other: Signature) -> bool:
        return self.similarity(other) >= CLOSE


def mask(line: str) -> str:
    """One line with its run-specific noise replaced by `<time>`, `<hex>`, `<path>/`, `<n>`…"""
    line = line[:RAW_CHARS]
    for pattern, replacement in _MASKS:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())[:LINE_CHARS]


def _weight(word: str) -> float:
    first, rest = word[0], word[1:]
    if first in "'\"`":
        return 3.0
    if first == "<":
        return 0.5
    if "_" in word or "." in word.strip(".") or rest != rest.lower():
        return 2.0
    return 1.0


def _words(lines: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    found: dict[str, float] = {}
    for line in lines:
        for word in _WORD.findall(line):
            found[word.lower()] = max(found.get(word.lower(), 0.0), _weight(word))
    return tuple(sorted(found.items()))


def _kept(lines: list[str]) -> list[str]:
    masked = (mask(line) for line in lines)
    return [m for m in masked if m.lower() not in _GENERIC and any(c.isalpha() for c in m)]


def looks_like_error(line: str) -> bool:
    """A line that says something failed (the rest of an output is context that varies)."""
    return bool(_ERROR_WORDS.search(_PREFIX.sub("", line.strip())))


def signature(output: str) -> Signature:
    """The signature of an error text: its lines that say what failed (the last lines when none
    does), masked, deduplicated, at most `MAX_LINES` (the first and the last ones)."""
    lines = [_PREFIX.sub("", raw.strip()) for raw in _ANSI.sub("", output).splitlines()]
    lines = [line for line in lines if any(c.isalpha() for c in line)]
    errors = [line for line in lines if _ERROR_WORDS.search(line)]
    if len(errors) > 4 * MAX_LINES:  # only its first and last lines are kept: mask no more
        errors = errors[: 2 * MAX_LINES] + errors[-2 * MAX_LINES :]
    unique = tuple(dict.fromkeys(_kept(errors) or _kept(lines[-6:])[-3:]))
    if len(unique) > MAX_LINES:
        unique = unique[: MAX_LINES // 2] + unique[-MAX_LINES // 2 :]
    key = hashlib.sha1("\n".join(unique).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return Signature(unique, key, _words(unique))
