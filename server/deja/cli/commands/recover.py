"""`deja recover ID`: what Deja holds of a session, written back into Continue's store as a new
session (the one command that writes there; `deja.continue_write` does the writing)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from deja.operations import RecoverRequest
from deja.quantities import count
from deja.query import History
from deja.wire_share import recover_json

from ..common import as_request, emit, implicit_pass, opened_history

if TYPE_CHECKING:
    from deja.query.recover import RecoverOutcome

REDACTED_NOTE = "the text is Deja's copy: secrets were redacted ([redacted:KIND]) before indexing"
UNREDACTED_NOTE = (
    "the text is Deja's copy, indexed with DEJA_NO_REDACT=1: secrets were NOT redacted"
)


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    request = as_request(RecoverRequest, args)  # `session_id` is its `session`
    implicit_pass(history)
    outcome = history.recover(request.session, copy=request.copy, dry_run=request.dry_run)
    if not args.json:
        from deja import settings

        note = REDACTED_NOTE if settings.redact_secrets() else UNREDACTED_NOTE
        print(f"note: {note}", file=sys.stderr)
    emit(args, "recover", lambda: _lines(outcome), **recover_json(outcome))
    return 0


def _lines(outcome: RecoverOutcome) -> list[str]:
    import json

    recovered, new = outcome.recovered, outcome.new
    held = f"{count(len(recovered.history), 'turn')}, {recovered.only_deja} of them only Deja held"
    if not outcome.written:
        return [
            f"dry run: nothing written. `deja recover {recovered.session.id}` would write:",
            f"--- {new.file} ({held})",
            *new.text.splitlines(),
            f"--- {new.list_file}: this entry appended",
            *json.dumps(new.entry, indent=2, ensure_ascii=False).splitlines(),
        ]
    return [
        f"recovered {recovered.session.id} as a new Continue session: {new.session_id}",
        f"  wrote {new.file} ({held})",
        f"  listed in {new.list_file}",
        f"  continue it: {outcome.fork().line}",
    ]
