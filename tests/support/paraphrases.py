"""Sessions that only the deep model finds by a paraphrase, for the doors' tests of search by
meaning: each question shares no word with its session, the static model's cosine to it is
under its floor (0.3) and the deep model's well above its own (0.26). Checked with both models:
"Report totals" 0.16 / 0.45, "Uploads" 0.22 / 0.57 (user turn, answer with its question)."""

from __future__ import annotations

from pathlib import Path

from deja.query import History
from tests.support.storebuilder import assistant, session_doc, user, write_session

REPORTS = "a1b2c3d4-0000-4000-8000-000000000021"
BUTTONS = "a1b2c3d4-0000-4000-8000-000000000022"
REPORTS_QUESTION = "why did the nightly numbers come out a day off"
# Asked of the turn `add_uploads_turn` adds to "Buttons".
UPLOADS_QUESTION = "why do big files never finish sending"


def _buttons(*more: dict[str, object]) -> dict[str, object]:
    turns = [user("Make the buttons blue."), assistant("Changed the stylesheet colour."), *more]
    return session_doc(BUTTONS, turns, title="Buttons")


def write_paraphrased(root: Path) -> None:
    """ "Report totals" (older) and "Buttons" (newer) in the store at `root`."""
    write_session(
        root,
        session_doc(
            REPORTS,
            [
                user("Reports show yesterday's totals after 5pm."),
                assistant(
                    "The job used the server's local time; it now converts to UTC before"
                    " cutting days."
                ),
            ],
            title="Report totals",
        ),
        mtime=1_750_000_000,
    )
    write_session(root, _buttons(), mtime=1_760_000_000)


def add_uploads_turn(root: Path) -> None:
    """Continue writes "Buttons" again with a turn about uploads."""
    turns = (
        user("Uploads over 10 MB time out."),
        assistant("The proxy's body limit was raised and the upload streams in chunks now."),
    )
    write_session(root, _buttons(*turns), listed=False)


def read_deep(history: History, sessions: int | None = None) -> int:
    """What a long-running door's deep pass does, here: the records of every session (or of the
    `sessions` most recently active) read by the deep model and saved; how many."""
    from deja.semantic import deep_model

    model = deep_model.load()
    read = 0
    history.deep_prepare()
    while (sessions is None or sessions > 0) and (work := history.deep_work()) is not None:
        vectors = model.embed([text for _, _, text in work.records])
        read += history.save_deep(work, [v.tobytes() for v in vectors])
        sessions = None if sessions is None else sessions - 1
    history.end_deep()
    return read
