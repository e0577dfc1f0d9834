"""Workspace directories as Continue stores them: IDE URIs and CLI paths, made comparable."""

from __future__ import annotations

import os
import posixpath

_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _drive_end(text: str) -> int:
    """Where a leading drive (`c:`, `/c:`) and the separator after it end, or -1 for none: what
    `re.match(r"^/?([A-Za-z]):(?:[/\\\\]|$)", text).end()` gives (no `re` on a search's path);
    the letter is just before the colon."""
    at = 1 if text[:1] == "/" else 0
    if text[at : at + 1] not in _ASCII_LETTERS or text[at + 1 : at + 2] != ":":
        return -1
    after = text[at + 2 :]
    if after[:1] in ("/", "\\"):
        return at + 3
    return at + 2 if after in ("", "\n") else -1  # `$` matches before a last newline


def normalize_workspace(value: object) -> str:
    """`file:///c%3A/Users/x/` → `c:/Users/x`; `/home/u/proj/` → `/home/u/proj`; junk → ``."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if not text:
        return ""
    if "://" in text:
        # An IDE's URI (`urllib` loads here: a search's start does not pay for it).
        from urllib.parse import unquote
    if text.lower().startswith("file://"):
        text = unquote(text[len("file://") :])
        # `file://host/share` keeps its host as a UNC-like prefix; `file:///p` has an empty host.
        if not text.startswith("/"):
            text = "//" + text
    elif "://" in text:
        # vscode-remote:// and similar: keep the path part, it is what the user recognises.
        text = unquote(text.split("://", 1)[1])
        text = "/" + text.split("/", 1)[1] if "/" in text else ""
    text = text.replace("\\", "/")
    drive = _drive_end(text)
    root = "/"
    if drive >= 0:
        letter = text[text.index(":") - 1]
        text = letter.lower() + ":/" + text[drive:]
        root = text[:3]
    stripped = text.rstrip("/")
    return stripped if len(stripped) >= len(root) else root


def is_windows_path(path: str) -> bool:
    """A drive (`C:\\…`, `c:/…`) or UNC (`\\\\server\\share`) path: absolute on every system."""
    return _drive_end(path) >= 0 or path.startswith("\\\\")


def absolute_path(path: str, cwd: str) -> str:
    """`path` as the index compares it: a file:// URI or a Windows path as it is (on any system:
    the editor may run on Windows while the path is checked elsewhere), else joined to `cwd`."""
    if path.lower().startswith("file://") or is_windows_path(path):
        return normalize_workspace(path)
    return normalize_workspace(os.path.normpath(os.path.join(cwd, path)))


def project_name(workspace: str) -> str:
    """The workspace's last folder name (`/home/u/proj` → `proj`)."""
    if not workspace:
        return ""
    tail = posixpath.basename(workspace.rstrip("/"))
    return tail or workspace


def resolve_tool_path(path: str, workspace: str) -> str:
    """Tool paths are as the model gave them, often relative to the workspace."""
    path = path.strip()
    if not path:
        return ""
    if path.lower().startswith("file://") or _drive_end(path) >= 0 or path.startswith("\\\\"):
        # Windows paths compare as the workspaces do: `/` separators, the drive in lower case.
        return normalize_workspace(path)
    if path.startswith("/") or not workspace:
        return posixpath.normpath(path) if path.startswith("/") else path
    if _drive_end(workspace) >= 0 or workspace.startswith("//"):
        path = path.replace("\\", "/")  # only on Windows is a backslash a separator
    return posixpath.normpath(posixpath.join(workspace, path))


def workspace_contains(workspace: str, directory: str) -> bool:
    """True when `directory` is the workspace or lies inside it."""
    if not workspace or not directory:
        return False
    if workspace == "/":
        return directory.startswith("/")
    return directory == workspace or directory.startswith(workspace.rstrip("/") + "/")


def relative_to_workspace(path: str, workspace: str) -> str:
    """`path` relative to the workspace when it lies inside it, else as it is."""
    base = workspace.rstrip("/") + "/"
    return path[len(base) :] if workspace and path.startswith(base) else path
