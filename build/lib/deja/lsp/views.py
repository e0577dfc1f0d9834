"""The documents commands show: markdown written under DEJA_HOME/views and opened with
`window/showDocument`, so clients with no Deja plugin (JetBrains, Neovim) get them too."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from .context import DejaServer

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, limit: int = 48) -> str:
    return _UNSAFE.sub("-", text).strip("-.")[:limit] or "untitled"


def file_view_name(path: str) -> str:
    """Per file, so two files of the same name do not share a document."""
    digest = hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"history-{slug(os.path.basename(path))}-{digest}"


def write_view(folder: Path, name: str, markdown: str) -> Path:
    """Private like the index (the text is the user's conversations); replaced whole, so an
    editor showing it never reads half a file."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    partial = folder / f".{name}.{os.getpid()}.tmp"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(markdown)
    os.replace(partial, path)
    return path


async def show_view(ls: DejaServer, name: str, markdown: str) -> dict[str, Any]:
    """Write the document and ask the client to open it; `shown` says whether it did."""
    path = write_view(await ls.views_folder(), name, markdown)
    uri = str(from_fs_path(str(path)))
    window = ls.client_capabilities.window
    shown = False
    if window and window.show_document and window.show_document.support:
        result = await ls.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=True)
        )
        shown = bool(result and result.success)
    if not shown:
        ls.tell(f"wrote {path}", types.MessageType.Info)
    return {"uri": uri, "shown": shown}
