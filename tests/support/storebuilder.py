"""Builds small Continue stores on disk for tests. The documents come from the shared
builder (`fixtures/continue_builder.py`); this module writes them as stores.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fixtures.continue_builder import assistant, session_doc, tool_output, tool_state, user

__all__ = ["assistant", "call", "session_doc", "snapshot", "user", "write_session"]


def call(
    name: str,
    args: dict[str, Any],
    output: str | None = None,
    status: str = "done",
    call_id: str = "call_1",
    parsed: bool = True,
    output_status: str | None = None,
) -> dict[str, Any]:
    """A CLI tool call state, with its output (if any) as one "Tool Result" item."""
    out = None if output is None else tool_output(output, output_status)
    return tool_state(call_id, name, args, out, status, parsed)


def write_session(
    root: Path,
    doc: dict[str, Any] | bytes | str,
    session_id: str | None = None,
    *,
    listed: bool = True,
    date_created: str | None = "1750262400000",
    mtime: float | None = None,
) -> Path:
    folder = root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(doc, dict):
        session_id = session_id or doc["sessionId"]
        data = json.dumps(doc, indent=2).encode()
    else:
        data = doc.encode() if isinstance(doc, str) else doc
    assert session_id
    path = folder / f"{session_id}.json"
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    if listed:
        list_path = folder / "sessions.json"
        entries = json.loads(list_path.read_text()) if list_path.exists() else []
        entry: dict[str, Any] = {
            "sessionId": session_id,
            "title": doc.get("title", "") if isinstance(doc, dict) else "",
            "workspaceDirectory": doc.get("workspaceDirectory", "")
            if isinstance(doc, dict)
            else "",
        }
        if date_created is not None:
            entry["dateCreated"] = date_created
        entries.append(entry)
        list_path.write_text(json.dumps(entries, indent=2))
    return path


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mtime: a read must leave them exactly as they were."""
    return {
        str(path): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }
