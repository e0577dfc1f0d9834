"""JSON for all of Deja: orjson when it is installed (the fast path), else the standard library
with orjson's semantics, so every caller gets the same results either way. The VS Code
extension's universal package carries no orjson; its platform packages do.

What orjson refuses and the fallback refuses too: invalid UTF-8, `NaN`/`Infinity`, unpaired
surrogate escapes, nesting too deep for the parser (all a `JSONDecodeError`); an integer outside
[-2**63, 2**64) is read as a float, as orjson reads it. When writing, a string with a lone
surrogate is a `TypeError`, and a non-finite float is written as `null`, as orjson does.
The one difference: a float may be written in another notation of the same number
(`6.1e-05` for `0.000061`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

try:
    import orjson
except ImportError:  # the universal VS Code package, or a Python without wheels for it
    orjson = None  # type: ignore[assignment]

JSONDecodeError = json.JSONDecodeError  # orjson.JSONDecodeError subclasses it
HAS_ORJSON = orjson is not None

_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1
# Only a text with one of these needs the walk for unpaired surrogates.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    if orjson is not None:
        return orjson.loads(data)
    return stdlib_loads(data)


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """Compact JSON (or indented by two spaces) as UTF-8 bytes, non-ASCII kept as is."""
    if orjson is not None:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    return stdlib_dumps(value, indent=indent)


def _error(message: str) -> json.JSONDecodeError:
    return json.JSONDecodeError(message, "", 0)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _bounded_int(digits: str) -> int | float:
    number = int(digits)
    return number if _INT_MIN <= number <= _INT_MAX else float(digits)


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


def stdlib_loads(data: bytes | bytearray | memoryview | str) -> Any:
    """The fallback `loads` (public so the bench can time it next to orjson)."""
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as error:
            raise _error(f"str is not valid UTF-8: {error.reason}") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _error("recursion limit reached") from None
    except ValueError as error:
        raise _error(str(error)) from None
    if _SURROGATE_ESCAPE.search(text) is not None and _has_surrogate(value):
        raise _error("unpaired surrogate in a string")
    return value


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def _default(value: Any) -> Any:
    # orjson writes dataclasses natively.
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def stdlib_dumps(value: Any, *, indent: bool = False) -> bytes:
    """The fallback `dumps`: orjson's bytes for what orjson writes."""
    options: dict[str, Any] = {
        "ensure_ascii": False,
        "allow_nan": False,
        "default": _default,
        "indent": 2 if indent else None,
        "separators": (",", ": ") if indent else (",", ":"),
    }
    try:
        text = json.dumps(value, **options)
    except ValueError:  # a NaN or an infinity: orjson writes null
        text = json.dumps(_finite(value), **options)
    except RecursionError:
        raise TypeError("recursion limit reached") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise TypeError("str is not valid UTF-8: surrogates not allowed") from None
