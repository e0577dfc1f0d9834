"""Initialize (options), initialized (start indexing), shutdown, opening and closing documents."""

from __future__ import annotations

from lsprotocol import types

from .context import DejaServer
from .indexing import Indexer
from .options import parse_options


def register(server: DejaServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: DejaServer, params: types.InitializeParams) -> None:
        ls.options, problems = parse_options(params.initialization_options)
        if problems:
            ls.tell("\n".join(problems))

    @server.feature(types.INITIALIZED)
    def initialized(ls: DejaServer, params: types.InitializedParams) -> None:
        ls.indexer = Indexer(ls)
        ls.indexer.start()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: DejaServer, params: None) -> None:
        if ls.indexer is not None:
            ls.indexer.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DejaServer, params: types.DidOpenTextDocumentParams) -> None:
        """Place the file's history now, so the first hover answers from the cache."""
        if ls.history is None:
            return
        try:
            ls.file_view(params.text_document.uri)
        except Exception as error:
            ls.log(f"history of {params.text_document.uri}: {error}", types.MessageType.Warning)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DejaServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.views.forget(params.text_document.uri)
