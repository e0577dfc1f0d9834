"""`deja/fix` (what fixed this error before) and `deja/files` (the files a topic touched)."""

from __future__ import annotations

from typing import Any

from deja.fix_blocks import files_blocks, files_nothing, fix_blocks, fix_nothing
from deja.operations import FilesRequest, FixRequest
from deja.query import History, Scope, ScopeChoice
from deja.wire import files_json, fix_json

from .context import DejaServer
from .errors import guarded
from .params import Params

FIX = "deja/fix"
FILES = "deja/files"
# The end of a long terminal output says what failed; the rest is not read.
ERROR_CHARS = 64_000


def _fenced(lines: list[str]) -> str:
    body = "\n".join(lines).replace("```", "` ` `")
    return f"```text\n{body}\n```\n"


def _joined(blocks: list[list[str]]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        lines += [*block, ""]
    return lines[:-1]


def fix_result(history: History, params: Params) -> dict[str, Any]:
    """Every workspace: an error is seldom one project's own. `markdown` is the answer as the
    CLI prints it; the extension shows it as it is."""
    request = params.request(FixRequest, ("error", "limit"), {})
    result = history.fix(request.error[-ERROR_CHARS:], Scope(), limit=request.limit)
    if result.failures:
        lines = [f"error signature: {result.error}", "", *_joined(fix_blocks(result))]
    else:
        lines = [fix_nothing(result, "any workspace")]
    return {**fix_json(result), "markdown": _fenced(lines)}


def files_result(history: History, params: Params, choice: ScopeChoice) -> dict[str, Any]:
    request = params.request(FilesRequest, ("topic", "scope", "limit"), {})
    result = history.files(request.topic, choice.scope, limit=request.limit)
    lines = _joined(files_blocks(result)) or [files_nothing(result, choice.scope.label)]
    return {
        **files_json(result),
        "scope": choice.scope.label,
        "notes": choice.notes,
        "markdown": _fenced([*choice.notes, *lines]),
    }


def register(server: DejaServer) -> None:
    @server.feature(FIX)
    @guarded(FIX)
    async def fix(ls: DejaServer, params: Any) -> dict[str, Any]:
        return fix_result(await ls.history(), Params(FIX, params))

    @server.feature(FILES)
    @guarded(FILES)
    async def files(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(FILES, params)
        history = await ls.history()
        return files_result(history, parsed, ls.scope(history, parsed.scope()))
