"""The one type of user error: a request the user (or the agent, or the editor) can fix, said in
one line. Each front door maps `DejaError` once — the CLI to exit 1, the sidecar to a JSON-RPC
InvalidParams error, MCP to an error result — so a new error needs no door to learn it."""

from __future__ import annotations


class DejaError(ValueError):
    """A user error; the first argument is the message the doors show. A `ValueError`, as every
    user error was before it had a type of its own (callers catch them as such)."""

    exit_code = 1  # the CLI's; 2 for input its parser could have refused (a usage error)

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""
