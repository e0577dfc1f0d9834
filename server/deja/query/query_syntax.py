"""The search query syntax: words, phrases, prefixes, exclusions and the operators, parsed into
a `ParsedQuery` and written as an FTS5 expression."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from deja.errors import DejaError
from deja.index.tokens import identifier_parts
from deja.plain_record import NamedTuple


class QueryError(DejaError):
    """The query cannot be searched (empty, only exclusions, an operator without its words)."""


# Uppercase only: lowercase `and`/`or`/`not` stay words to search for.
_OPERATORS = ("AND", "OR", "NOT")


class Term(NamedTuple):
    tokens: tuple[str, ...]
    prefix: bool = False
    exclude: bool = False
    phrase: bool = False
    # A camel-case word (`parseConfig`) also matches its parts written apart (`parse_config`).
    parts: tuple[str, ...] = ()

    def fts(self) -> str:
        star = "*" if self.prefix else ""
        quoted = '"' + " ".join(self.tokens) + '"' + star
        if not self.parts:
            return quoted
        return f'({quoted} OR "{" ".join(self.parts)}"{star})'


class ParsedQuery(NamedTuple):
    """Every group must match (AND), one term of a group is enough (OR); no exclusion may."""

    groups: tuple[tuple[Term, ...], ...]
    excluded: tuple[Term, ...] = ()

    def terms(self) -> list[Term]:
        return [term for group in self.groups for term in group]

    def map_terms(self, change: Callable[[Term], Term]) -> ParsedQuery:
        return ParsedQuery(
            tuple(tuple(change(term) for term in group) for group in self.groups),
            tuple(change(term) for term in self.excluded),
        )


# The query is read by hand, as `re` would read it with the patterns the docstrings give: a query
# is a few words, and loading `re` (with `enum`) and compiling the patterns cost a search more
# than its own work (tests/query/test_query_scan.py holds the equivalence).


def _tokens(text: str) -> list[str]:
    """The runs of letters and digits: `re.findall(r"[^\\W_]+", text)`."""
    found: list[str] = []
    start = -1
    for at, char in enumerate(text):
        if char.isalnum():
            if start < 0:
                start = at
        elif start >= 0:
            found.append(text[start:at])
            start = -1
    if start >= 0:
        found.append(text[start:])
    return found


def _scan(text: str) -> Iterator[tuple[str, str | None, str]]:
    """`(dash, phrase, word)` for each part: a quoted phrase (`-` before it, its closing quote
    optional) or a run of non-spaces, as `re.finditer(r'(-?)"([^"]*)"?|(\\S+)', text)` gives its
    groups (`phrase` None for a word, `word` "" for a phrase)."""
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char.isspace():
            at += 1
            continue
        quote = at if char == '"' else at + 1 if text.startswith('-"', at) else -1
        if quote >= 0:
            close = text.find('"', quote + 1)
            stop = end if close < 0 else close
            yield text[at:quote], text[quote + 1 : stop], ""
            at = end if close < 0 else close + 1
            continue
        start = at
        while at < end and not text[at].isspace():
            at += 1
        yield "", None, text[start:at]


def _parts(text: str) -> list[Term | str]:
    """The query's terms and operators in order; a word without letters or digits is dropped."""
    parts: list[Term | str] = []
    for dash, phrase, word in _scan(text):
        if phrase is not None:
            tokens = tuple(_tokens(phrase.lower()))
            if tokens:
                parts.append(Term(tokens, exclude=bool(dash), phrase=True))
            continue
        if word in _OPERATORS:
            parts.append(word)
            continue
        exclude = word.startswith("-") and len(word) > 1
        word = word[1:] if exclude else word
        prefix = word.endswith("*")
        tokens = tuple(_tokens(word.lower()))
        if tokens:
            split = tuple(identifier_parts(word).lower().split())
            parts.append(
                Term(tokens, prefix=prefix, exclude=exclude, parts=split if len(split) > 1 else ())
            )
    return parts


def _operator_error(operator: str) -> QueryError:
    where = "after it" if operator == "NOT" else "on each side"
    return QueryError(
        f"{operator} needs a word {where}; write {operator.lower()!r} in lowercase to search"
        " for the word"
    )


def _exclusion_in_or() -> QueryError:
    return QueryError(
        "OR joins words to find, not exclusions (NOT word, -word); write 'or' in lowercase to"
        " search for the word"
    )


def parse_query(text: str) -> ParsedQuery:
    """Words (all must match), `"exact phrase"`, `prefix*`, `-exclude`, and the operators `OR`
    (either side matches; it binds tighter than the implicit AND: `retry timeout OR deadline`),
    `AND` (the same as a space) and `NOT word` (the same as `-word`). A word with punctuation
    in it (`parse_config`, `src/app/main.py`) is searched as the phrase of its parts."""
    groups: list[list[Term]] = []
    excluded: list[Term] = []
    last: Term | None = None
    joining: str | None = None  # "AND" or "OR" waiting for the word on its right
    negate = False
    for part in _parts(text):
        if isinstance(part, str):
            if part == "NOT":
                if joining == "OR":
                    raise _exclusion_in_or()
                if negate:
                    raise _operator_error("NOT")
                negate = True
                continue
            if last is None or joining or negate:
                raise _operator_error(part)
            if part == "OR" and last.exclude:
                raise _exclusion_in_or()
            joining = part
            continue
        term = part._replace(exclude=True) if negate else part
        if joining == "OR":
            if term.exclude:
                raise _exclusion_in_or()
            groups[-1].append(term)
        elif term.exclude:
            excluded.append(term)
        else:
            groups.append([term])
        last, joining, negate = term, None, False
    if negate or joining:
        raise _operator_error("NOT" if negate else str(joining))
    if not groups:
        raise QueryError(
            "the search needs at least one word to find" if excluded else "the search is empty"
        )
    return ParsedQuery(tuple(tuple(group) for group in groups), tuple(excluded))


def fts_expression(query: ParsedQuery) -> str:
    positive = " AND ".join(
        group[0].fts() if len(group) == 1 else "(" + " OR ".join(t.fts() for t in group) + ")"
        for group in query.groups
    )
    negative = "".join(f" NOT {term.fts()}" for term in query.excluded)
    return f"({positive}){negative}" if negative else positive
