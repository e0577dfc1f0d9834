"""What `deja install continue` changed, kept next to the config so uninstall undoes exactly that.

`<root>/deja-install.json` says, for each config key install put an entry into, the key's line
before (None: install created the key) and after; the text the skeleton was added to, when
install added one; and the SHA-256 of the `SKILL.md` install wrote (so an edited skill is kept,
and one an older Deja wrote is still recognised). Without it (an install by an older Deja, or the
file removed) uninstall falls back to what the config itself shows.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORD_NAME = "deja-install.json"
_WRITTEN_BY = "deja install continue; deja uninstall continue reads it and removes it"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_path(root: Path) -> Path:
    return root / RECORD_NAME


@dataclass(slots=True)
class Skeleton:
    """Install added Continue's required keys to `over` (None: it created the file)."""

    over: str | None


@dataclass(slots=True)
class InstallRecord:
    keys: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    skeleton: Skeleton | None = None
    skill_sha256: str | None = None

    def dumps(self) -> str:
        data: dict[str, Any] = {"written_by": _WRITTEN_BY}
        data["keys"] = {k: {"before": b, "after": a} for k, (b, a) in self.keys.items()}
        if self.skeleton is not None:
            data["skeleton"] = {"over": self.skeleton.over}
        data["skill_sha256"] = self.skill_sha256
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def loads(cls, text: str | None) -> InstallRecord:
        """The record in `text`; an empty one when missing or not in this shape (then uninstall
        relies on the config alone)."""
        try:
            data = json.loads(text) if text is not None else {}
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        record = cls()
        keys = data.get("keys")
        for key, lines in keys.items() if isinstance(keys, dict) else ():
            if not isinstance(lines, dict) or "before" not in lines:
                continue
            before, after = lines["before"], lines.get("after")
            if isinstance(before, str | None) and isinstance(after, str):
                record.keys[key] = (before, after)
        skeleton = data.get("skeleton")
        if isinstance(skeleton, dict) and isinstance(skeleton.get("over"), str | None):
            record.skeleton = Skeleton(skeleton.get("over"))
        if isinstance(data.get("skill_sha256"), str):
            record.skill_sha256 = data["skill_sha256"]
        return record
