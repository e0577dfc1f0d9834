"""Parameters of custom requests and command arguments: typed, with a clear message when wrong.

Custom requests' params arrive as plain JSON (`protocol.strict_converter`); namedtuples, pygls'
default form of JSON objects in messages of no LSP type, are turned back into plain data."""

from __future__ import annotations

from typing import Any, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path

from deja.operations import LOCAL_SCOPES, SIDECAR_NAMES, RequestInvalid, from_json
from deja.query.since import parse_since

from .errors import RequestError

R = TypeVar("R", bound=tuple[Any, ...])


def plain(value: Any) -> Any:
    """namedtuples (pygls' form of JSON objects) → dicts, all the way down."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


class Params:
    """One request's parameters: each accessor checks its field and names it when wrong."""

    def __init__(self, method: str, raw: Any) -> None:
        value = plain(raw)
        if value is None or value == []:  # Neovim sends an empty Lua table as `[]`
            value = {}
        if not isinstance(value, dict):
            raise RequestError(f"{method} takes an object of parameters, not {value!r}")
        self.values: dict[str, Any] = value

    def request(
        self, kind: type[R], fields: tuple[str, ...], defaults: dict[str, Any], **given: Any
    ) -> R:
        """The operation's typed request (`deja.operations`): `fields` read from the params
        under the sidecar's names (`sessionId`) and checked as every door checks them,
        `defaults` for the absent, `given` as read here."""
        try:
            return from_json(
                kind,
                self.values,
                fields=fields,
                defaults=defaults,
                moment=parse_since,
                names=SIDECAR_NAMES,
                **given,
            )
        except RequestInvalid as error:
            raise RequestError(error.message) from None

    def text(self, name: str) -> str | None:
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            raise RequestError(f"{name} must be a string, not {value!r}")
        return value

    def required_text(self, name: str) -> str:
        value = self.text(name)
        if not value or not value.strip():
            raise RequestError(f"{name} is required")
        return value

    def integer(self, name: str, default: int | None, *, low: int = 0, high: int = 10_000) -> int:
        value = self.values.get(name)
        if value is None:
            if default is None:
                raise RequestError(f"{name} is required")
            return default
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RequestError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
        return value

    def choice(self, name: str, choices: tuple[str, ...]) -> str | None:
        value = self.text(name)
        if value is not None and value not in choices:
            raise RequestError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
        return value

    def scope(self) -> str | None:
        return self.choice("scope", LOCAL_SCOPES)

    def file(self) -> str | None:
        """A file URI or a path (absolute, or relative: matched as a path suffix)."""
        value = self.text("file")
        if value is None or not value.strip():
            return None
        if "://" in value:
            path = to_fs_path(value)
            if path is None:
                raise RequestError(f"file {value!r} is not a file: URI")
            return path
        return value.removeprefix("./")

    def position(self) -> types.Position | None:
        value = self.values.get("position")
        if value is None:
            return None
        if not isinstance(value, dict):
            raise RequestError(f"position must be {{line, character}}, not {value!r}")
        return types.Position(
            line=Params("position", value).integer("line", None, high=10_000_000),
            character=Params("position", value).integer("character", None, high=10_000_000),
        )


def command_params(command: str, args: tuple[Any, ...], names: tuple[str, ...]) -> Params:
    """Command arguments either as one object (`[{"sessionId": …}]`) or positionally
    (`["…", 3]` in the order of `names`)."""
    if len(args) == 1 and isinstance(args[0], dict):
        return Params(command, args[0])
    if len(args) > len(names):
        raise RequestError(f"{command} takes at most {len(names)} arguments: {', '.join(names)}")
    return Params(command, dict(zip(names, args, strict=False)))
