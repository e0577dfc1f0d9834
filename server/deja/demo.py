"""`make demo`: index the user's Continue store (or the sample store when there is none) and show
a search and a file's history. `python -m deja.demo`."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from shlex import quote

from deja.cli import render
from deja.continue_store import resolve_root
from deja.quantities import count
from deja.query import History, Scope, SearchQuery

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample-store"
# The sample store's half-written file (`fixtures/make_sample_store.py`), there on purpose.
HALF_WRITTEN = "a3b6f2d8-9e1c-4b75-8a2f-1c5d7e9b0307.json"


def main() -> int:
    root = resolve_root()
    home = None
    if not (root / "sessions").is_dir():
        print(f"No Continue history at {root}; using the sample store in {SAMPLE}.")
        root = SAMPLE
        # The sample's index lives beside the checkout, not in the user's data folder.
        home = Path(os.environ.get("DEJA_DEMO_HOME", SAMPLE.parents[1] / ".cache" / "demo-home"))
    history = History(home=home, root=root)
    style = render.Style(sys.stdout)
    now = time.time()
    try:
        report = history.refresh()
        print(
            style.bold(
                f"Indexed {root}: {count(report.sessions, 'session')}, {report.changed} indexed "
                f"in {report.seconds:.2f} s, {len(report.errors)} unreadable"
            )
        )
        for diagnostic in report.errors:
            on_purpose = root == SAMPLE and Path(diagnostic.path).name == HALF_WRITTEN
            if on_purpose:
                print(
                    style.dim(
                        f"  unreadable, deliberately: {Path(diagnostic.path).name} is a"
                        " half-written file the sample store carries to show it is skipped"
                    )
                )
            else:
                print(style.dim(f"  unreadable: {diagnostic.path}: {diagnostic.message}"))
        sessions = history.sessions(Scope(), limit=3)
        print(style.bold("\nLatest sessions"))
        for summary in sessions:
            render.write_lines(render.session_lines(summary, style, now))
        query = "flaky test" if root == SAMPLE else _word_of(sessions[0].title if sessions else "")
        if query:
            print(style.bold(f"\n$ deja search {query} --all"))
            for hit in history.search(SearchQuery(query, limit=5)).hits:
                render.write_lines(render.hit_lines(hit, style, now))
        path = "src/config.py" if root == SAMPLE else history.most_edited_file()
        if path:
            print(style.bold(f"\n$ deja blame {path}"))
            for event in history.file_history(path, cwd="/", limit=5):
                render.write_lines(render.event_lines(event, style, now))
        print(f"\n{try_line(root == SAMPLE, history.home)}")
    finally:
        history.close()
    return 0


def try_line(sample: bool, home: Path) -> str:
    """What to run next. On the sample store, with the two variables that point `deja` at it
    and at its index (without them it reads the user's own store)."""
    deja = Path(sys.executable).parent / "deja"
    command = str(deja) if deja.exists() else "deja"
    if sample:
        command = f"DEJA_HOME={quote(str(home))} DEJA_CONTINUE_ROOT={quote(str(SAMPLE))} {command}"
    return f"Try: {command} search WORDS --all (also: sessions --all, show ID)"


def _word_of(title: str) -> str:
    words = [w for w in title.split() if len(w) > 3 and w.isalpha()]
    return words[0] if words else ""


if __name__ == "__main__":
    sys.exit(main())
