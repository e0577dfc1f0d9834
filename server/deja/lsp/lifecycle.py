"""Initialize (options), initialized (start indexing), shutdown, opening and closing documents,
and the configuration changes clients send as a matter of course."""

from __future__ import annotations

from lsprotocol import types

from .context import DejaServer, IndexNotOpen
from .indexing import start_indexing
from .options import parse_options


def register(server: DejaServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: DejaServer, params: types.InitializeParams) -> None:
        ls.options, problems = parse_options(params.initialization_options)
        if problems:
            ls.tell("\n".join(problems))

    @server.feature(types.INITIALIZED)
    def initialized(ls: DejaServer, params: types.InitializedParams) -> None:
        ls.live = start_indexing(ls)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: DejaServer, params: None) -> None:
        if ls.live is not None:
            ls.live.stop()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: DejaServer, params: types.DidChangeConfigurationParams
    ) -> None:
        """Ordinary traffic (most clients send it once after initialize): Deja's settings are
        its `initializationOptions`, taken at start."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DejaServer, params: types.DidOpenTextDocumentParams) -> None:
        """Place the file's history now, so the first hover answers from the cache."""
        try:
            history = ls.open_history()
        except IndexNotOpen:
            return
        try:
            ls.file_view(history, params.text_document.uri)
        except Exception as error:
            ls.log(f"history of {params.text_document.uri}: {error}", types.MessageType.Warning)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DejaServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.views.forget(params.text_document.uri)
