"""Builds small Continue stores on disk for tests, shaped as Continue writes them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def user(text: str | list[Any], **extra: Any) -> dict[str, Any]:
    return {"message": {"role": "user", "content": text}, "contextItems": [], **extra}


def assistant(text: str = "", states: list[dict[str, Any]] | None = None, **extra: Any) -> dict:
    item: dict[str, Any] = {"message": {"role": "assistant", "content": text}, "contextItems": []}
    if states is not None:
        item["message"]["toolCalls"] = [state["toolCall"] for state in states]
        item["toolCallStates"] = states
    item.update(extra)
    return item


def call(
    name: str,
    args: dict[str, Any],
    output: str | None = None,
    status: str = "done",
    call_id: str = "call_1",
    parsed: bool = True,
    output_status: str | None = None,
) -> dict[str, Any]:
    state: dict[str, Any] = {
        "toolCallId": call_id,
        "toolCall": {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        },
        "status": status,
        "parsedArgs": args if parsed else {},
    }
    if output is not None:
        out: dict[str, Any] = {
            "content": output,
            "name": "Tool Result",
            "description": "Tool execution result",
        }
        if output_status is not None:
            out["status"] = output_status
        state["output"] = [out]
    return state


def session_doc(
    session_id: str, history: list[Any], title: str = "A session", workspace: str = "/w/proj"
) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "title": title,
        "workspaceDirectory": workspace,
        "history": history,
    }


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
