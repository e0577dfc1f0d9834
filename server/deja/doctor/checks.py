"""One finding of `deja doctor`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Check:
    """`fix` is what to do when `ok` is false (None when all is well); `data` holds the facts a
    renderer may list (paths, files and their reasons)."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


def passed(name: str, detail: str, **data: Any) -> Check:
    return Check(name, True, detail, None, data)


def failed(name: str, detail: str, fix: str, **data: Any) -> Check:
    return Check(name, False, detail, fix, data)
