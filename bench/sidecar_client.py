"""The bench's LSP client: `deja serve` over stdio, initialized on a store and an index home,
returned once its first pass has ended (the server's work-done progress says so).

It keeps a custom request's result as the plain JSON it came as, as VS Code's client does: pygls'
client would make a namedtuple class for each JSON object in it (about 3 ms for a `deja/search`
page of 20 hits, on the client, inside the round trip the bench times)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cattrs import Converter
    from pygls.lsp.client import LanguageClient

SERVER = Path(__file__).resolve().parent.parent / "server"


def plain_results_converter() -> Converter:
    """pygls' converter, but a result of no LSP type is left as parsed."""
    from pygls.protocol import JsonRPCResponseMessage, default_converter

    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(
        JsonRPCResponseMessage, lambda data, message_type: message_type(**data)
    )
    return converter


async def indexed_sidecar(
    store: Path,
    home: Path,
    *,
    timeout: float = 600,
    env: dict[str, str] | None = None,
    on_log: Callable[[str], None] | None = None,
) -> LanguageClient:
    """A started client whose server has indexed `store` into `home` (scope: all workspaces);
    `env`, the server's environment (default: this one's, with `server/` on its path); `on_log`
    is given each line the server logs."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("deja-bench", "1", converter_factory=plain_results_converter)
    indexed = asyncio.Event()

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(_params: Any) -> None:
        return None

    @client.feature(types.PROGRESS)
    def progress(params: Any) -> None:
        value = params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "end":
            indexed.set()

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(params: Any) -> None:
        if on_log is not None:
            on_log(str(params.message))

    if env is None:
        env = {**os.environ, "PYTHONPATH": str(SERVER)}
    await client.start_io(sys.executable, "-m", "deja", "serve", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True)
            ),
            initialization_options={
                "continueRoot": str(store),
                "dejaHome": str(home),
                "scope": "all",
            },
        )
    )
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(indexed.wait(), timeout=timeout)
    return client
