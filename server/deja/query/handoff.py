"""Getting back into an old session from a terminal: `cn --fork ID` run in its workspace
(`deja resume`), or a new `cn` session opened with the old one's digest (`deja handoff`).

Pure: a session summary (and digest) in, the command line to print and the argv to run out. What
goes into a shell line is either a checked plain id or quoted, so printing a session's workspace
or digest can never run anything."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import Literal

from deja.errors import DejaError

from .sessions import SessionSummary

# Continue's ids are uuid v4; anything else (dots, underscores, slashes, quotes) is refused
# rather than quoted, since it goes on a command line as `--fork ID`. The one rule for ids that
# do (resume, fork); the store's `is_safe_file_id` is looser on purpose: it keeps file names
# safe and still reads a session whose id is not plain.
_PLAIN_ID = re.compile(r"[0-9A-Za-z-]{8,64}")
FORK_NOTE = (
    "--fork starts a new Continue session that carries the old session's history; "
    "the old session stays as it was."
)
GONE_NOTE = "The session's workspace {workspace} no longer exists: {what} will run where you are."
HANDOFF_NOTE = (
    "This opens a new Continue session with the old session's digest as its first prompt."
)


class HandoffError(DejaError):
    """The session cannot be resumed this way; one line for the user."""


def is_plain_id(value: str) -> bool:
    return bool(_PLAIN_ID.fullmatch(value))


def check_id(value: str) -> str:
    if not is_plain_id(value):
        raise HandoffError(
            f"{value!r} is not a plain session id (8-64 letters, digits and dashes); refusing to "
            "put it on a command line"
        )
    return value


Shell = Literal["posix", "powershell"]
SHELLS: tuple[Shell, ...] = ("posix", "powershell")
# PowerShell ends a single-quoted string at any of these, and reads each one doubled as itself.
_PS_QUOTES = "'\u2018\u2019\u201a\u201b"


def default_shell() -> Shell:
    """PowerShell on Windows (its terminals' default), a POSIX shell everywhere else."""
    return "powershell" if os.name == "nt" else "posix"


def powershell_quote(word: str) -> str:
    """A PowerShell verbatim string: nothing inside is expanded (`$`, backtick, `"`)."""
    return "'" + "".join(c * 2 if c in _PS_QUOTES else c for c in word) + "'"


def native_path(workspace: str) -> str:
    """`c:/Users/x` → `C:\\Users\\x`, `//server/share` → `\\\\server\\share`: a normalized Windows
    workspace as Windows writes it; any other path as it is."""
    if re.match(r"[a-z]:/", workspace):
        return workspace[0].upper() + workspace[1:].replace("/", "\\")
    return workspace.replace("/", "\\") if workspace.startswith("//") else workspace


def quote(word: str) -> str:
    """Single-quoted for a POSIX shell, always (shlex leaves safe words bare; a path the user
    reads is clearer with its quotes)."""
    quoted = shlex.quote(word)
    return quoted if quoted.startswith("'") else f"'{word}'"


@dataclass(frozen=True, slots=True)
class Launch:
    """`line` is what to print; `argv` run in `cwd` (None: where the user is) does the same."""

    line: str
    argv: list[str]
    cwd: str | None
    notes: list[str]


def _workspace(session: SessionSummary) -> str | None:
    return session.workspace if session.workspace and os.path.isdir(session.workspace) else None


def resume(session: SessionSummary, shell: Shell = "posix") -> Launch:
    """`cd '<workspace>' && cn --fork <id>` (PowerShell: `Set-Location -LiteralPath '<workspace>';
    cn --fork <id>`); just `cn --fork <id>` when the folder is gone."""
    session_id = check_id(session.id)
    argv = ["cn", "--fork", session_id]
    workspace = _workspace(session)
    notes = [FORK_NOTE]
    command = " ".join(argv)  # the id is plain: nothing to quote in either shell
    if workspace is None:
        notes.append(
            GONE_NOTE.format(workspace=session.workspace or "(none recorded)", what="the fork")
        )
        return Launch(command, argv, None, notes)
    if shell == "powershell":
        line = f"Set-Location -LiteralPath {powershell_quote(native_path(workspace))}; {command}"
    else:
        line = f"cd {quote(workspace)} && {command}"
    return Launch(line, argv, workspace, notes)


def handoff(session: SessionSummary, digest: str, shell: Shell = "posix") -> Launch:
    """`cn '<digest>'` (PowerShell: a verbatim string, which may span lines), run in the
    session's workspace when it still exists."""
    workspace = _workspace(session)
    notes = [HANDOFF_NOTE]
    if workspace is None:
        notes.append(GONE_NOTE.format(workspace=session.workspace or "(none recorded)", what="cn"))
    elif shell == "powershell":
        where = powershell_quote(native_path(workspace))
        notes.append(f"Run it in the session's workspace: Set-Location -LiteralPath {where}")
    else:
        notes.append(f"Run it in the session's workspace: cd {quote(workspace)}")
    line = f"cn {powershell_quote(digest) if shell == 'powershell' else quote(digest)}"
    return Launch(line, ["cn", digest], workspace, notes)
