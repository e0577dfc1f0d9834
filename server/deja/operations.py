"""One typed request per operation the front doors share, and the rules of its inputs stated
once: a `limit` is a whole number from 1 to 500 whether it came from `deja search --limit`, a
`deja/search` request or an agent's `deja_search` call. Each door converts its own input into the
request — the CLI its parsed options (`from_options`), the sidecar and MCP their JSON
(`from_json`, through cattrs) — and every door refuses bad input in the same words, one line.
MCP's `inputSchema` is generated from the same types and rules (`json_schema`).

Light on purpose: the requests are `NamedTuple`s (`plain_record`'s: no `typing` loaded) and the
CLI's converter is plain Python, because `deja search` starts in tens of milliseconds and
importing attrs (it loads `inspect`) or cattrs would cost it more than the whole conversion.
cattrs loads only for JSON input; `typing` only for a door that asks for the `Literal` types."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from deja.errors import DejaError
from deja.plain_record import NamedTuple

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeVar

    import cattrs

    R = TypeVar("R", bound=tuple[Any, ...])


class RequestInvalid(DejaError):
    """An input no request of this operation may hold: one line naming the field."""

    exit_code = 2  # on the CLI, a bad option value, as argparse's own refusals


class Rule(NamedTuple):
    """What one field accepts beyond its type: a range, a set of words, non-blank text."""

    low: int | None = None
    high: int | None = None
    # The words, or where to find them when that module is not to be loaded before it is needed.
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    required: bool = False
    doc: str = ""

    def words(self) -> tuple[str, ...]:
        return self.choices() if callable(self.choices) else self.choices


def _search_roles() -> tuple[str, ...]:
    from deja.query import SEARCH_ROLES  # the search module: MCP's handshake does not load it

    return SEARCH_ROLES


# The bounds, stated once for every door.
LIMIT = Rule(low=1, high=500)
OFFSET = Rule(low=0, high=1_000_000)
SINCE_DOC = "12h, 7d or 2026-11-01"
SEARCH_SCOPES = ("workspace", "all", "team")
# The scopes of this machine's index: every door's `scope` (the sidecar's default too). The
# `Literal` types are built from the tuples when a door asks for them (`__getattr__`).
if TYPE_CHECKING:
    LocalScope = Literal["workspace", "all"]
    ExportFormat = Literal["md", "html", "json"]
LOCAL_SCOPES: tuple[LocalScope, ...] = ("workspace", "all")
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "html", "json")


def __getattr__(name: str) -> object:
    """`LocalScope` and `ExportFormat`, as `Literal` types of the tuples' words."""
    literals = {"LocalScope": LOCAL_SCOPES, "ExportFormat": EXPORT_FORMATS}
    if name in literals:
        from typing import Literal

        return Literal[literals[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A turn's number, or a page's first turn, in a session.
TURN = Rule(low=0, high=100_000_000)

# What a door calls a field when not by its own name, stated once for the converters: the CLI's
# positional `ID` is `session_id` (an option of the field's own name comes first), the
# sidecar's JSON is camelCase and says `count` for counting every hit. MCP's arguments are the
# fields' own names.
CLI_NAMES = {"session": "session_id"}
SIDECAR_NAMES = {"session": "sessionId", "count_all": "count", "dry_run": "dryRun"}


class SearchRequest(NamedTuple):
    query: str
    scope: str | None = None
    role: str | None = None
    file: str | None = None
    session: str | None = None
    project: str | None = None  # the team scope only
    since: float | None = None  # a moment; JSON sends it as text (`SINCE_DOC`)
    limit: int = 20
    offset: int = 0
    count_all: bool = False  # the sidecar's `count`: count every hit (a second query)


class SessionsRequest(NamedTuple):
    scope: str | None = None
    limit: int = 50
    offset: int = 0


class FileHistoryRequest(NamedTuple):
    path: str
    limit: int = 50


class FixRequest(NamedTuple):
    error: str
    limit: int = 5


class FilesRequest(NamedTuple):
    topic: str
    scope: str | None = None
    limit: int = 20


class ShowRequest(NamedTuple):
    """A session as indexed (`deja show`, `deja/session`), or a page of its turns (the session
    view: `offset` and `limit` in turns, or the page holding `turn`)."""

    session: str
    turn: int | None = None
    offset: int | None = None
    limit: int | None = None  # None: the page's usual size


class RestoreRequest(NamedTuple):
    session: str | None = None  # an id, 8+ characters of one, or "last"
    topic: str | None = None
    selection: str = ""  # `1,3`, `1-4`, `last`, `: topic` (the CLI and the sidecar)
    scope: str | None = None


class RecoverRequest(NamedTuple):
    session: str
    copy: bool = False  # write it even when Continue still holds it whole
    dry_run: bool = False


class ExportRequest(NamedTuple):
    session: str
    format: str | None = None  # None: the CLI's from the output file's extension, else md


RULES: dict[type, dict[str, Rule]] = {
    SearchRequest: {
        "query": Rule(required=True, doc='words, "a phrase", prefix*, -not'),
        "scope": Rule(choices=SEARCH_SCOPES),
        "role": Rule(choices=_search_roles),
        "since": Rule(doc=SINCE_DOC),
        "limit": LIMIT,
        "offset": OFFSET,
    },
    SessionsRequest: {"scope": Rule(choices=LOCAL_SCOPES), "limit": LIMIT, "offset": OFFSET},
    FileHistoryRequest: {"path": Rule(required=True), "limit": LIMIT},
    FixRequest: {"error": Rule(required=True), "limit": LIMIT},
    FilesRequest: {
        "topic": Rule(required=True),
        "scope": Rule(choices=LOCAL_SCOPES),
        "limit": LIMIT,
    },
    ShowRequest: {"session": Rule(required=True), "turn": TURN, "offset": TURN, "limit": LIMIT},
    RestoreRequest: {"scope": Rule(choices=LOCAL_SCOPES)},
    RecoverRequest: {"session": Rule(required=True)},
    ExportRequest: {"session": Rule(required=True), "format": Rule(choices=EXPORT_FORMATS)},
}


def _kind(annotation: object) -> str:
    """`int`, `str`, `bool` or `float` of a field's annotation (`str | None` → `str`): read from
    its text (a `ForwardRef` under postponed annotations), so no type hints are evaluated."""
    text = getattr(annotation, "__forward_arg__", annotation)
    return str(text).split("|")[0].strip()


def _wanted(kind: str, rule: Rule) -> str:
    if rule.choices:
        return f"one of {', '.join(rule.words())}"
    if kind == "int":
        low, high = rule.low, rule.high
        if low is not None and high is not None:
            return f"a whole number from {low} to {high}"
        return "a whole number" + (f" of {low} or more" if low is not None else "")
    if kind == "bool":
        return "true or false"
    if kind == "float":
        return "a moment"
    return "a string"


def _refuse(
    kind: type, name: str, value: object, names: Mapping[str, str] | None = None
) -> RequestInvalid:
    """The one line: the field named as the door's input names it (`names`)."""
    rule = RULES[kind].get(name, Rule())
    said = (names or {}).get(name, name)
    if rule.required and (value is None or (isinstance(value, str) and not value.strip())):
        return RequestInvalid(f"{said} is required")
    wanted = _wanted(_kind(kind.__annotations__[name]), rule)
    return RequestInvalid(f"{said} must be {wanted}, not {value!r}")


def _fits(kind: str, rule: Rule, value: object) -> bool:
    if value is None:
        return not rule.required
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        return (rule.low is None or value >= rule.low) and (rule.high is None or value <= rule.high)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if not isinstance(value, str):
        return False
    return (not rule.required or bool(value.strip())) and (
        not rule.choices or value in rule.words()
    )


def check(request: R, names: Mapping[str, str] | None = None) -> R:
    """The request itself, when every field keeps its rule; else one line naming the first."""
    kind = type(request)
    rules = RULES[kind]
    for name, value in zip(request._fields, request, strict=True):  # type: ignore[attr-defined]
        if not _fits(_kind(kind.__annotations__[name]), rules.get(name, Rule()), value):
            raise _refuse(kind, name, value, names)
    return request


def from_options(
    kind: type[R],
    options: Mapping[str, Any] | object,
    names: Mapping[str, str] | None = None,
    **given: Any,
) -> R:
    """The CLI's converter: a request from parsed options (an `argparse.Namespace` or a dict),
    each field taken from the option of its name, else of its CLI name (`CLI_NAMES`: `deja
    search --session` is `session`, `deja show ID` is `session_id`); `given` wins.
    A number option the CLI could not read arrives as its word, refused here in every door's
    words; `names` spells an option as the command line does (`limit` → `--limit`)."""
    values = options if isinstance(options, Mapping) else vars(options)
    fields: tuple[str, ...] = kind._fields  # type: ignore[attr-defined]
    spelled = {name: name if name in values else CLI_NAMES.get(name, name) for name in fields}
    chosen = {name: values[key] for name, key in spelled.items() if key in values}
    said = {name: names[key] for name, key in spelled.items() if names and key in names}
    return check(kind(**{**chosen, **given}), said)


# JSON input: the sidecar's params and MCP's arguments ----------------------------------------


def _converter() -> cattrs.Converter:
    import cattrs
    from cattrs.cols import namedtuple_dict_structure_factory

    def strict(*types: type) -> Callable[[object, type], object]:
        def structure(value: object, _: type) -> object:
            if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
                raise TypeError(value)
            return value

        return structure

    converter = cattrs.Converter()
    # A request is a `collections.namedtuple` (`plain_record`), which cattrs's own predicate,
    # looking for `typing.NamedTuple` among the bases, does not see.
    converter.register_structure_hook_factory(_is_request, namedtuple_dict_structure_factory)
    for kind, accepts in ((str, (str,)), (int, (int,)), (bool, (bool,)), (float, (int, float))):
        converter.register_structure_hook(kind, strict(*accepts))
    return converter


def _is_request(kind: object) -> bool:
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


_CONVERTER: list[cattrs.Converter] = []


def _failed_field(error: Exception) -> str | None:
    from cattrs.errors import AttributeValidationNote

    for inner in getattr(error, "exceptions", [error]):
        for note in getattr(inner, "__notes__", []):
            if isinstance(note, AttributeValidationNote):
                return str(note.name)
    return None


def from_json(
    kind: type[R],
    values: Mapping[str, Any],
    *,
    fields: Iterable[str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    moment: Callable[[str], float] | None = None,
    names: Mapping[str, str] | None = None,
    **given: Any,
) -> R:
    """A request from a JSON object: only `fields` are read (every field unless given; other
    keys are ignored, as the schema allows), each under its door's name (`names`, e.g.
    `SIDECAR_NAMES`), `defaults` fill what is absent or null, a `since` given as text becomes a
    moment through `moment`, and `given` (what the door read itself) wins."""
    from cattrs.errors import BaseValidationError

    if not _CONVERTER:
        _CONVERTER.append(_converter())
    names = names or {}
    wanted = kind._fields if fields is None else fields  # type: ignore[attr-defined]
    data = {**(defaults or {})}
    for name in wanted:
        if values.get(names.get(name, name)) is not None:
            data[name] = values[names.get(name, name)]
    if "since" in data and moment is not None:  # JSON sends a moment as text
        if not isinstance(data["since"], str):
            raise RequestInvalid(f"since must be a string, not {data['since']!r}")
        text = data.pop("since").strip()
        try:
            data.update({"since": moment(text)} if text else {})
        except DejaError as error:
            raise RequestInvalid(f"since: {error.message}") from None
    try:
        request = _CONVERTER[0].structure(data, kind)
    except BaseValidationError as error:
        name = _failed_field(error)
        if name is None:
            raise RequestInvalid(f"{kind.__name__}: {error}") from None
        raise _refuse(kind, name, data.get(name), names) from None
    return check(request._replace(**given) if given else request, names)  # type: ignore[attr-defined]


def json_schema(kind: type, fields: Iterable[str] | None = None) -> dict[str, Any]:
    """The JSON Schema of `kind`'s JSON input (only `fields` when given): what MCP ships as a
    tool's `inputSchema`, from the same types and rules the converter checks."""
    names = list(kind._fields if fields is None else fields)  # type: ignore[attr-defined]
    defaults: dict[str, Any] = kind._field_defaults  # type: ignore[attr-defined]
    properties: dict[str, Any] = {}
    for name in names:
        rule = RULES[kind].get(name, Rule())
        field_kind = _kind(kind.__annotations__[name])
        json_type = {"int": "integer", "bool": "boolean", "float": "string"}.get(field_kind)
        schema: dict[str, Any] = {"type": json_type or "string"}
        if rule.doc:
            schema["description"] = rule.doc
        if rule.choices:
            schema["enum"] = list(rule.words())
        if rule.required:
            schema["pattern"] = r"\S"
        if rule.low is not None:
            schema["minimum"] = rule.low
        if rule.high is not None:
            schema["maximum"] = rule.high
        properties[name] = schema
    required = [name for name in names if name not in defaults]
    return {"type": "object", "properties": properties} | (
        {"required": required} if required else {}
    )
