"""The privacy switch: workspaces listed in `~/.config/deja/exclude` are never indexed.

One glob per line, matched against a session's workspace folder (`/home/me/client-*`,
`~/secret/**`); blank lines and `#` comments are ignored. A folder also excludes what lies in it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from deja import settings
from deja.continue_store.workspace import normalize_workspace, workspace_contains


@dataclass(frozen=True, slots=True)
class ExcludeList:
    patterns: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256("\n".join(self.patterns).encode()).hexdigest()[:16]

    def excludes(self, workspace: str) -> bool:
        if not workspace:
            return False
        return any(
            fnmatch.fnmatchcase(workspace, pattern) or workspace_contains(pattern, workspace)
            for pattern in self.patterns
        )


def load_exclude_list(path: Path | None = None) -> ExcludeList:
    path = path or settings.exclude_file()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ExcludeList()
    patterns = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append(normalize_workspace(os.path.expanduser(line)))
    return ExcludeList(tuple(p for p in patterns if p))
