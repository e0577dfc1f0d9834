"""`initializationOptions`: typed, with defaults, and one clear message for each wrong value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deja.operations import LOCAL_SCOPES, LocalScope

ScopeName = LocalScope
SCOPES = LOCAL_SCOPES  # the scopes every door's requests take
KNOWN = ("continueRoot", "dejaHome", "scope", "teamPush", "notifications")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """`None` paths mean Deja's usual lookup (DEJA_CONTINUE_ROOT … ~/.continue, DEJA_HOME …)."""

    continue_root: Path | None = None
    deja_home: Path | None = None
    scope: ScopeName = "workspace"
    # Push the shared workspaces to the team database after each pass that changed sessions.
    team_push: bool = False
    # Send the `deja/*` notifications: only a client that knows them asks (others warn or fail).
    notifications: bool = False


def _path(raw: dict[str, Any], key: str, problems: list[str], *, must_exist: bool) -> Path | None:
    if raw.get(key) is None:
        return None
    value = raw[key]
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{key} must be a folder path (a string), not {value!r}")
        return None
    path = Path(value.strip()).expanduser()
    if not path.is_absolute():
        # Relative to what? The editor's working directory is nobody's choice.
        problems.append(f"{key} {value!r} must be an absolute path")
        return None
    if must_exist and not path.is_dir():
        problems.append(f"{key} {value!r} is not a folder")
        return None
    return path


def parse_options(raw: object) -> tuple[ServerOptions, list[str]]:
    """The options, and one message per problem; a wrong value falls back to its default."""
    if raw is None:
        return ServerOptions(), []
    if not isinstance(raw, dict):
        return ServerOptions(), [
            f'initializationOptions must be an object like {{"scope": "workspace"}}, '
            f"not {type(raw).__name__}; using the defaults"
        ]
    problems = [
        f"unknown option {key!r} ignored (known: {', '.join(KNOWN)})"
        for key in raw
        if key not in KNOWN
    ]
    continue_root = _path(raw, "continueRoot", problems, must_exist=True)
    deja_home = _path(raw, "dejaHome", problems, must_exist=False)
    scope = raw.get("scope", "workspace")
    if scope not in SCOPES:
        problems.append(f"scope {scope!r} is not one of {' or '.join(SCOPES)}")
        scope = "workspace"
    team_push = _flag(raw, "teamPush", problems)
    notifications = _flag(raw, "notifications", problems)
    messages = [f"initializationOptions: {problem}; using the default" for problem in problems]
    return ServerOptions(continue_root, deja_home, scope, team_push, notifications), messages


def _flag(raw: dict[str, Any], key: str, problems: list[str]) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        problems.append(f"{key} must be true or false, not {value!r}")
        return False
    return value
