"""The `PreCompact` hook `deja install continue` writes into `<root>/settings.json`, the hooks file
`cn` reads from Continue's root (Claude-Code-compatible: `{"hooks": {"PreCompact": [{"hooks":
[{"type": "command", "command": …}]}]}}`). It runs `deja capture`, which indexes the session
`cn` is about to compact (the hook's stdin JSON names it), so the turns compaction deletes are
held even when nothing else of Deja runs. `cn` 1.5.47 declares the event but does not fire it;
a release that does needs no further change.

Ours is found again by its `statusMessage`, so installing twice changes nothing. The file's text
before install is kept beside it (`settings.json.deja-backup`) and put back byte for byte by
uninstall when nothing else changed; otherwise only our entry is removed."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

SETTINGS = "settings.json"
BACKUP_SUFFIX = ".deja-backup"
EVENT = "PreCompact"
STATUS = "Deja: keeping the session before compaction"
TIMEOUT_S = 60

# (file, text before, text after); None: absent.
FileChange = tuple[Path, str | None, str | None]


class SettingsError(ValueError):
    """The settings file cannot be edited safely: left alone, with the reason."""


def settings_path(root: Path) -> Path:
    return root / SETTINGS


def backup_path(root: Path) -> Path:
    return root / (SETTINGS + BACKUP_SUFFIX)


def hook_command(command: str, args: list[str]) -> str:
    """The launcher `install` uses for the MCP server, running `capture` instead of `mcp`."""
    rest = [arg for arg in args if arg != "mcp"]
    return shlex.join([command, *rest, "capture"])


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _load(text: str | None, path: Path) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise SettingsError(f"{path} is not valid JSON ({error}): hook not written") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise SettingsError(f"{path} does not hold a settings object: hook not written")
    return data


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _ours(group: object) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and any(
        isinstance(hook, dict) and hook.get("statusMessage") == STATUS for hook in hooks
    )


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    hooks = dict(data.get("hooks") or {})
    groups = hooks.get(EVENT)
    if not isinstance(groups, list):
        return data
    kept = [group for group in groups if not _ours(group)]
    if kept:
        hooks[EVENT] = kept
    else:
        hooks.pop(EVENT)
    rest = {**data, "hooks": hooks}
    if not hooks:
        rest.pop("hooks")
    return rest


def install_changes(root: Path, command: str, args: list[str]) -> list[FileChange]:
    """The settings file with our hook (and its backup, once); [] when it is there already."""
    path = settings_path(root)
    before = _read(path)
    data = _load(before, path)
    entry = {
        "hooks": [
            {
                "type": "command",
                "command": hook_command(command, args),
                "timeout": TIMEOUT_S,
                "statusMessage": STATUS,
            }
        ]
    }
    rest = _without_ours(data)
    hooks = dict(rest.get("hooks") or {})
    groups = hooks.get(EVENT)
    hooks[EVENT] = [*(groups if isinstance(groups, list) else []), entry]
    after_data = {**rest, "hooks": hooks}
    if after_data == data:
        return []
    changes: list[FileChange] = [(path, before, _dump(after_data))]
    backup = backup_path(root)
    if before is not None and not backup.exists() and not any(map(_ours, _groups(data))):
        changes.insert(0, (backup, None, before))
    return changes


def _groups(data: dict[str, Any]) -> list[Any]:
    groups = (data.get("hooks") or {}).get(EVENT)
    return groups if isinstance(groups, list) else []


def uninstall_changes(root: Path) -> list[FileChange]:
    """Our hook removed: the file as it was before install when nothing else changed (absent
    if install created it), else the file without our entry; the backup removed."""
    path, backup = settings_path(root), backup_path(root)
    before = _read(path)
    try:
        data = _load(before, path)
    except SettingsError:
        return []  # not ours to repair; the hook line, if any, stays visible to the user
    if before is None or not any(map(_ours, _groups(data))):
        return []
    rest = _without_ours(data)
    original = _read(backup)
    changes: list[FileChange] = []
    if original is not None:
        changes.append((backup, original, None))
        try:
            same = _load(original, backup) == rest
        except SettingsError:
            same = False
        after: str | None = original if same else _dump(rest)
    else:
        after = None if not rest else _dump(rest)
    changes.insert(0, (path, before, after))
    return changes


def install_or_say(root: Path, command: str, args: list[str], kept: list[str]) -> list[FileChange]:
    """`install_changes`, or none with the reason added to `kept`."""
    try:
        return install_changes(root, command, args)
    except SettingsError as error:
        kept.append(str(error))
        return []
