"""What a pass reports (`refresh.run_pass`, and `plan.quiet_report` for a store the last pass
saw as it is now): here, apart from the pass, so that reading one loads none of the reader."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

    from deja.continue_store.records import Diagnostic

    from .refusal import StoreRefusal

_FIELDS = (
    "sessions",
    "read",
    "changed",
    "kept",
    "deleted",
    "errors",
    "notes",
    "changed_ids",
    "seconds",
    "refused",
)


class PassReport:
    """What one pass saw and did (`sessions`: those it listed; a partial pass lists only its
    own files). A plain class rather than a dataclass: `deja index` over an
    unchanged store makes this and nothing else that needs `dataclasses`, whose import (with
    `inspect`) was a sixth of that run's instructions."""

    __slots__ = _FIELDS
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(
        self,
        sessions: int = 0,
        read: int = 0,
        changed: int = 0,
        kept: int = 0,
        deleted: int = 0,
        errors: list[Diagnostic] | None = None,
        notes: list[Diagnostic] | None = None,
        changed_ids: list[str] | None = None,
        seconds: float = 0.0,
        refused: StoreRefusal | None = None,
    ) -> None:
        self.sessions = sessions
        self.read = read
        self.changed = changed
        self.kept = kept
        self.deleted = deleted
        self.errors: list[Diagnostic] = [] if errors is None else errors
        self.notes: list[Diagnostic] = [] if notes is None else notes
        self.changed_ids: list[str] = [] if changed_ids is None else changed_ids
        self.seconds = seconds
        self.refused = refused

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PassReport):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.as_dict().items())
        return f"PassReport({shown})"
