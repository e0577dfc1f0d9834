"""Provenance figures: a 5,000-line file with 50 recorded writes and edits (2 Writes, 48 Edits,
some of part of a line) and 20 lines changed by hand since.

    python bench/provenance_bench.py [--quick]     # bench/run.py prints the same rows

Measures, in process: the whole mapping (`provenance`) of a history already prepared (a new
document version or index generation of the same file history) and the first one of a history
(its hunks prepared), a keystroke's update (`updated`), the CPU time of both against the matcher
before the speed work (`tests/support/provenance_reference.py`, interleaved in the same
process), and the same claims made with difflib's `SequenceMatcher` (the standard library's
matcher, the document as its indexed second sequence: the baseline the patience anchors
replaced). Through a real sidecar (`deja serve` over stdio): hover on a document version already
mapped, and hover right after an unsaved keystroke (the update included). A loop of a million
additions is timed first: the machine's load, to read the other figures against.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

from fixtures.continue_builder import (  # noqa: E402
    assistant,
    session_doc,
    tool_output,
    tool_state,
    user,
)

from bench.baselines import summarize  # noqa: E402
from bench.sidecar_client import indexed_sidecar  # noqa: E402
from deja.continue_store.content import MAX_OUTPUT_CHARS, clip  # noqa: E402
from deja.query.blame import FileEvent  # noqa: E402
from deja.query.provenance import forget_prepared, is_trivial, prepare  # noqa: E402
from deja.query.provenance_match import provenance  # noqa: E402
from deja.query.provenance_update import updated  # noqa: E402

Row = tuple[str, str, str]
LINES = 5000
SESSIONS = 10  # the 50 edits are 5 turns of 10 sessions


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def source(rng: random.Random, generation: int) -> list[str]:
    """Python-looking lines: functions of a few statements, blank lines and lone brackets."""
    lines: list[str] = []
    while len(lines) < LINES:
        n = len(lines)
        lines.append(f"def handler_{n}_{generation}(request, limit={rng.randint(1, 99)}):")
        for k in range(rng.randint(2, 6)):
            lines.append(f"    value_{k} = request.get('field_{n}_{k}', {rng.randint(0, 999)})")
        lines += ["    return {", f"        'id': {n},", "    }", ""]
    return lines[:LINES]


def history(seed: int = 1) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The 50 calls (tool, arguments) oldest first, and the file's text now."""
    rng = random.Random(seed)
    first = source(rng, 0)
    calls: list[tuple[str, dict[str, Any]]] = [("Write", {"content": "\n".join(first) + "\n"})]
    text = calls[0][1]["content"]
    for number in range(1, 50):
        lines = text.split("\n")
        if number == 25:  # a rewrite of the whole file: the first 100 functions' defaults change
            rewritten = [
                line.replace("limit=", "limit=1") if n < 1500 else line
                for n, line in enumerate(lines)
            ]
            text = "\n".join(rewritten)
            calls.append(("Write", {"content": text}))
            continue
        at = rng.randrange(len(lines) - 6)
        while is_trivial(lines[at]) or lines[at] in lines[:at] + lines[at + 1 :]:
            at = rng.randrange(len(lines) - 6)
        if number % 3 == 0:  # part of a line
            old = lines[at].split("(", 1)[0]
            new = old + "_v2"
        else:
            size = rng.randint(1, 5)
            old = "\n".join(lines[at : at + size])
            new = "\n".join(f"{line}  # reviewed {number}" for line in lines[at : at + size])
        if text.count(old) != 1:
            continue
        text = text.replace(old, new)
        calls.append(("Edit", {"old_string": old, "new_string": new}))
    lines = text.split("\n")
    for at in rng.sample(range(len(lines) - 1), 20):  # by hand, since
        lines[at] = lines[at] + " or 0" if lines[at].strip() else lines[at]
    return calls, "\n".join(lines)


def events_of(calls: list[tuple[str, dict[str, Any]]]) -> list[FileEvent]:
    """Newest first, as `file_history` gives them."""
    events = []
    for number, (tool, args) in enumerate(calls):
        write = tool == "Write"
        hunk = (None, args["content"]) if write else (args["old_string"], args["new_string"])
        event = FileEvent(f"s{number}", "t", "/w", number, number, "edit", tool, "done", "/w/a.py",
                          False, "", [hunk])  # fmt: skip
        events.append(event)
    return events[::-1]


def clipped(event: FileEvent) -> FileEvent:
    """The event as the index holds it (`clip`: head and tail of a long text)."""
    hunks = [(old, clip(new, MAX_OUTPUT_CHARS)) for old, new in event.hunks]
    return replace(event, hunks=hunks)


def difflib_claims(events: list[FileEvent], document: str) -> int:
    """The baseline: each hunk's lines matched as a sequence by difflib, oldest first."""
    keys = [line.rstrip() for line in document.split("\n")]
    matcher = SequenceMatcher(is_trivial, (), keys)
    owners: list[int] = [-1] * len(keys)
    for hunk in prepare(events):
        matcher.set_seq1(hunk.lines)
        for _, b, size in matcher.get_matching_blocks():
            owners[b : b + size] = [hunk.event] * size
    return sum(owner >= 0 for owner in owners)


def load_loop() -> float:
    started = time.perf_counter()
    total = 0
    for n in range(1_000_000):
        total += n
    return time.perf_counter() - started


def against_reference(runs: int, events: list[FileEvent], document: str) -> Row:
    """CPU time (`process_time`) of the matcher before the speed work, the first mapping of a
    history and a mapping again, interleaved run by run (this machine's load hits all three)."""
    from tests.support import provenance_reference

    kinds = {
        "before": lambda: provenance_reference.provenance(events, document),
        "first": lambda: provenance(events, document),
        "again": lambda: provenance(events, document),
    }
    spent: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(runs):
        for kind, run in kinds.items():
            if kind == "first":
                forget_prepared()  # (what it frees is not the mapping's cost)
            started = time.process_time()
            run()
            spent[kind].append(time.process_time() - started)
    before, first, again = (summarize(spent[kind])["p50"] for kind in kinds)
    return (
        "CPU p50: before the speed work / first / again",
        f"{ms(before)} / {ms(first)} / {ms(again)}",
        f"{before / first:.2f}× and {before / again:.2f}× faster (interleaved, same process)",
    )


def in_process(runs: int) -> tuple[list[Row], list[FileEvent], str]:
    calls, document = history()
    events = events_of(calls)
    cold = []
    for _ in range(runs):
        forget_prepared()
        started = time.perf_counter()
        provenance(events, document)
        cold.append(time.perf_counter() - started)
    full = []
    for _ in range(runs):
        started = time.perf_counter()
        mapping = provenance(events, document)
        full.append(time.perf_counter() - started)
    claimed = sum(mapping.owner(n) is not None for n in range(len(mapping.stacks)))
    rng = random.Random(2)
    keystroke, text, current = [], document, mapping
    for _ in range(runs):
        lines = text.split("\n")
        at = rng.randrange(len(lines))
        lines[at] = lines[at][:4] + "x" + lines[at][4:]
        text = "\n".join(lines)
        started = time.perf_counter()
        current = updated(current, text)
        keystroke.append(time.perf_counter() - started)
    started = time.perf_counter()
    baseline_claimed = difflib_claims(events, document)
    baseline = time.perf_counter() - started
    whole, first, typed = summarize(full), summarize(cold), summarize(keystroke)
    rows = [
        (
            "provenance, 5,000 lines × 50 edits",
            f"p50 {ms(whole['p50'])}",
            f"p99 {ms(whole['p99'])}, min {ms(whole['min'])} (≤ 20 ms; history prepared); "
            f"{claimed} of {len(mapping.stacks)} lines claimed",
        ),
        (
            "provenance, first of its history",
            f"p50 {ms(first['p50'])}",
            f"p99 {ms(first['p99'])}, min {ms(first['min'])} (the hunks prepared too)",
        ),
        against_reference(runs, events, document),
        (
            "provenance after a keystroke",
            f"p50 {ms(typed['p50'])}",
            f"p99 {ms(typed['p99'])}, min {ms(typed['min'])}",
        ),
        (
            "difflib SequenceMatcher, same claims",
            ms(baseline),
            f"{baseline / whole['p50']:.0f}× ours; {baseline_claimed} lines claimed",
        ),
    ]
    return rows, events, document


def write_store(root: Path, workspace: Path, calls: list[tuple[str, dict[str, Any]]]) -> Path:
    """The 50 calls as 10 sessions of 5 turns on `workspace/app.py`."""
    path = workspace / "app.py"
    folder = root / "sessions"
    folder.mkdir(parents=True)
    listed = []
    for number in range(SESSIONS):
        session_id = f"be0c0000-0000-4000-8000-{number:012d}"
        items: list[dict[str, Any]] = []
        for turn, (tool, args) in enumerate(calls[number * 5 : number * 5 + 5]):
            state = tool_state(f"c{turn}", tool, {"file_path": str(path), **args},
                               tool_output("done"))  # fmt: skip
            items += [user(f"change app.py, step {turn}"), assistant("", [state])]
        doc = session_doc(session_id, items, f"Bench session {number}", workspace.as_uri())
        (folder / f"{session_id}.json").write_text(json.dumps(doc))
        created = str(1750262400000 + number * 3_600_000)
        listed.append({"sessionId": session_id, "title": doc["title"], "dateCreated": created})
    (folder / "sessions.json").write_text(json.dumps(listed))
    return path


async def sidecar(runs: int, document: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Row]:
    from lsprotocol import types

    work = Path(tempfile.mkdtemp(prefix="deja-provenance-bench-"))
    workspace = work / "proj"
    workspace.mkdir()
    path = write_store(work / "continue", workspace, calls)
    path.write_text(document)
    client = await indexed_sidecar(work / "continue", work / "home")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=document)
        )
    )
    rng = random.Random(3)
    lines = document.count("\n") + 1
    # The index keeps a hunk over 16,000 characters as its head and tail: hover on lines whose
    # author the index can know (the in-process mapping over the same cut hunks).
    cut = [clipped(event) for event in events_of(calls)]
    mapping = provenance(cut, document)
    authored = [n for n in range(len(mapping.stacks)) if mapping.owner(n) is not None]

    async def hover() -> tuple[float, bool]:
        at = types.Position(line=rng.choice(authored), character=4)
        started = time.perf_counter()
        found = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), at)
        )
        return time.perf_counter() - started, found is not None

    first, _ = await hover()  # the mapping of version 1 is made here
    cached = [await hover() for _ in range(runs)]
    typed: list[tuple[float, bool]] = []
    for version in range(2, runs + 2):
        at = types.Position(line=rng.randrange(lines), character=0)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(at, at), text="x")
                ],
            )
        )
        typed.append(await hover())
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    still, after = summarize([t for t, _ in cached]), summarize([t for t, _ in typed])
    answered = sum(found for _, found in cached)
    return [
        ("sidecar hover, first on the document", ms(first), "the mapping made, events queried"),
        (
            "sidecar hover, same version",
            f"p50 {ms(still['p50'])}",
            f"p99 {ms(still['p99'])}, min {ms(still['min'])} (≤ 10 ms); "
            f"{answered} of {runs} hovers answered",
        ),
        (
            "sidecar hover after a keystroke",
            f"p50 {ms(after['p50'])}",
            f"p99 {ms(after['p99'])}, min {ms(after['min'])} (≤ 10 ms; the update included)",
        ),
    ]


def rows(quick: bool = False) -> list[Row]:
    runs = 20 if quick else 200
    loop = load_loop()
    found = [("load: a loop of 1M additions", ms(loop), "≈ 40 ms on an idle core of this kind")]
    in_rows, _, document = in_process(runs)
    calls, _ = history()
    return found + in_rows + asyncio.run(sidecar(runs, document, calls))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI)")
    args = parser.parse_args()
    table = rows(args.quick)
    width = max(len(row[0]) for row in table)
    print(f"\nDeja provenance bench · {os.cpu_count()} cores")
    for name, figure, note in table:
        print(f"  {name:<{width}}  {figure:>16}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
