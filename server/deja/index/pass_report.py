"""What a pass reports (`refresh.run_pass`, and `quiet.quiet_report` for a store the last pass
saw as it is now): here, apart from the pass, so that reading one loads none of the reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deja.continue_store.records import Diagnostic

    from .refusal import StoreRefusal


@dataclass(slots=True)
class PassReport:
    sessions: int = 0
    read: int = 0
    changed: int = 0
    kept: int = 0
    deleted: int = 0
    errors: list[Diagnostic] = field(default_factory=list)
    notes: list[Diagnostic] = field(default_factory=list)
    changed_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    refused: StoreRefusal | None = None
