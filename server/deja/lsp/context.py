"""The sidecar's server object: options, the live index, open documents' file views.

Threads: requests run on the event loop and query through `history()` (the live index's reader,
used by the loop alone); the live index passes on its own thread through its own connection
and reports through `indexing.SidecarListener`, which calls back here on the loop."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, cast
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, PyglsError
from pygls.uris import to_fs_path

from deja import __version__
from deja.index import StoreRefusal
from deja.live_index import OPEN_FAILED, LiveIndex
from deja.query import History, Scope, ScopeChoice

from .documents import FileView, FileViews, build_view, read_document
from .errors import RequestError
from .options import ServerOptions
from .params import plain
from .protocol import unparseable
from .pygls_adapter import AdaptedServer

if TYPE_CHECKING:
    from .protocol import DejaProtocol

OPEN_TIMEOUT_S = 60.0
# How often a request waiting for the index to open looks again.
OPEN_POLL_S = 0.02
INDEX_CHANGED = "deja/indexChanged"
STORE_STATUS = "deja/storeStatus"
logger = logging.getLogger("deja.lsp")


class IndexNotOpen(RequestError):
    """The index is not open yet, or could not be opened."""


class DejaServer(AdaptedServer):
    def __init__(self) -> None:
        super().__init__("deja", __version__)
        self.options = ServerOptions()
        self.live: LiveIndex | None = None
        self.views = FileViews()
        self.store_warned = False

    # Messages to the user ---------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=f"deja: {message}"))

    def report_server_error(
        self, error: Exception, source: type[PyglsError] | type[JsonRpcException]
    ) -> None:
        """Failures outside a request (a notification's handler, a malformed message) become a
        log line, not a pop-up; a failed request has already had its JSON-RPC error."""
        if unparseable(error):
            cast("DejaProtocol", self.protocol).answer_unparseable(error)
        elif source is not FeatureRequestError:
            self.log(f"{source.__name__}: {error}", types.MessageType.Error)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"Deja: {message}"))
        self.log(message, kind)

    # The index --------------------------------------------------------------------------------

    async def history(self) -> History:
        """The query connection, the one way requests reach the index, once it is open.
        Raises `IndexNotOpen` when it could not be opened."""
        await self._opened()
        return self.open_history()

    def open_history(self) -> History:
        """The query connection without waiting: hover, code lens and didOpen answer nothing
        while the index opens, and must not wait in line for it. Raises `IndexNotOpen`."""
        live = self.live
        if live is None or live.history is None:
            if live is not None and live.open_error is not None:
                raise IndexNotOpen(OPEN_FAILED.format(error=live.open_error))
            raise IndexNotOpen("the index is still being opened; try again")
        return live.history

    async def _opened(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + OPEN_TIMEOUT_S
        while self.live is None or not self.live.opened:
            if loop.time() >= deadline:
                raise RequestError("the index took too long to open")
            await asyncio.sleep(OPEN_POLL_S)

    def takes_notifications(self) -> bool:
        """Whether the client opted in to `deja/*` notifications: `initializationOptions`
        `notifications: true`, or the capability `experimental.deja.notifications: true`."""
        if self.options.notifications:
            return True
        experimental = plain(self.client_capabilities.experimental)
        deja = experimental.get("deja") if isinstance(experimental, dict) else None
        return isinstance(deja, dict) and deja.get("notifications") is True

    def index_changed(self, session_ids: list[str]) -> None:
        """Drop stale file views, tell the client, and have it ask for code lenses again."""
        self.views.index_changed()
        if self.takes_notifications():
            self.protocol.notify(INDEX_CHANGED, {"sessions": session_ids})
        workspace = self.client_capabilities.workspace
        if workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    def store_status(self, refusal: StoreRefusal | None) -> None:
        """Tell the client whether passes apply Continue's store (VS Code's status bar shows
        it): sent when that changes, `ok` false while a missing or emptied store is refused.
        A client that does not take it is shown the first refusal once, as a warning."""
        if not self.takes_notifications():
            if refusal is not None and not self.store_warned:
                self.store_warned = True
                message = f"Deja: {refusal.message}"
                params = types.ShowMessageParams(type=types.MessageType.Warning, message=message)
                self.window_show_message(params)
            return
        self.protocol.notify(
            STORE_STATUS,
            {
                "ok": refusal is None,
                "problem": None if refusal is None else refusal.problem,
                "message": None if refusal is None else refusal.message,
            },
        )

    async def views_folder(self) -> Path:
        return (await self.history()).home / "views"

    # Workspace --------------------------------------------------------------------------------

    def folders(self) -> list[str]:
        """The editor's workspace folders (as URIs), or its root when it sent no folders."""
        folders = [folder.uri for folder in self.workspace.folders.values()]
        if not folders and self.workspace.root_uri:
            folders = [self.workspace.root_uri]
        return folders

    def scope(self, history: History, name: str | None = None) -> ScopeChoice:
        if (name or self.options.scope) == "all":
            return ScopeChoice(Scope())
        return history.scope_for_folders(self.folders())

    # Documents --------------------------------------------------------------------------------

    def file_view(self, history: History, uri: str) -> FileView | None:
        """The file's history placed in its current text (the editor's, else the disk's)."""
        path = to_fs_path(uri)
        if path is None:
            return None
        document = self.workspace.text_documents.get(unquote(uri))
        codec = self.workspace.position_codec
        if document is None:
            return build_view(history, uri, path, read_document(path), codec)
        return self.views.get(
            uri,
            document.version,
            lambda previous: build_view(history, uri, path, document.source, codec, previous),
        )

    def shutdown(self) -> None:
        """The transport closed: stop indexing too."""
        if self.live is not None:
            self.live.stop()
        super().shutdown()
