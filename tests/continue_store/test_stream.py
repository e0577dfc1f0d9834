"""A file read with its history streamed gives the same session as the same file parsed whole:
records (redaction included), items and their fingerprints, turn times, compaction, titles,
source and warnings. The stream threshold is forced low, so small files take the streamed path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.make_store import make_store

from deja.continue_store import Record, SessionRead, list_store, read_session, store
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

ALL = 1 << 62


class Sink:
    """A record sink as the index's spool is: records handed over, or all dropped on reset."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.resets = 0

    def add(self, records: list[Record]) -> None:
        self.records.extend(records)

    def reset(self) -> None:
        self.records = []
        self.resets += 1


def read_both(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[SessionRead, SessionRead]]:
    refs = [ref for ref in list_store(root).refs if ref.file is not None]
    assert refs
    whole = [read_session(ref, redact_secrets=True, max_bytes=ALL) for ref in refs]
    monkeypatch.setattr(store, "STREAM_MIN_BYTES", 1)
    streamed = [read_session(ref, redact_secrets=True, max_bytes=ALL) for ref in refs]
    monkeypatch.undo()
    return list(zip(whole, streamed, strict=True))


@pytest.mark.parametrize("shape", ["default", "cli"])
def test_generated_store_reads_the_same_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    make_store(tmp_path, 1_500_000, seed=3, workers=1, shape=shape)
    pairs = read_both(tmp_path, monkeypatch)
    assert sum(len(whole.session.records) for whole, _ in pairs if whole.session) > 100
    for whole, streamed in pairs:
        assert streamed == whole


def test_streamed_records_go_to_the_sink_and_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_store(tmp_path, 400_000, seed=5, workers=1, shape="cli")
    monkeypatch.setattr(store, "STREAM_MIN_BYTES", 1)
    for ref in list_store(tmp_path).refs:
        if ref.file is None:
            continue
        sink = Sink()
        streamed = read_session(ref, redact_secrets=True, max_bytes=ALL, spill=sink)
        whole = read_session(ref, redact_secrets=True, max_bytes=ALL)  # no sink: kept
        assert streamed.session is not None and whole.session is not None
        assert streamed.session.records == [] and sink.records == whole.session.records
        whole.session.records = []
        assert streamed == whole


def test_a_secret_is_redacted_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "AKIAIOSFODNN7EXAMPLE"
    history = [
        user(f"my key is {secret}"),
        assistant("", [call("Bash", {"command": "env"}, secret)]),
    ]
    write_session(tmp_path, session_doc("s", history))
    [(whole, streamed)] = read_both(tmp_path, monkeypatch)
    assert streamed == whole and whole.session is not None
    assert secret not in repr(whole.session) and "[redacted:" in repr(whole.session)


def raw(doc: dict[str, Any], history: list[Any] | Any, *, history_first: bool = False) -> str:
    """The document with `history` first or last among its keys."""
    rest = {key: value for key, value in doc.items() if key != "history"}
    ordered = {"history": history, **rest} if history_first else {**rest, "history": history}
    return json.dumps(ordered, indent=2)


def ide_tool_item(call_id: str, text: str) -> dict[str, Any]:
    return {"message": {"role": "tool", "content": text, "toolCallId": call_id}, "contextItems": []}


EDGE_CASES: dict[str, Any] = {
    # The workspace written after the history: tool paths resolve against it all the same.
    "workspace_after_history": (
        [user("read it"), assistant("", [call("Read", {"filepath": "a.py"}, "x = 1")])],
        True,
    ),
    # A call with no output, its IDE tool item after it (the file is read a second time).
    "tool_item_after": (
        [
            user("list"),
            assistant("", [call("run_terminal_command", {"command": "ls"}, None, call_id="t9")]),
            ide_tool_item("t9", "README.md"),
            ide_tool_item("t9", "README.md and more"),
        ],
        False,
    ),
    # The tool item before the call that lacks it (a third reading collects it).
    "tool_item_before": (
        [
            ide_tool_item("t7", "early output"),
            assistant("", [call("run_terminal_command", {"command": "ls"}, None, call_id="t7")]),
        ],
        False,
    ),
    "history_not_a_list": ({"message": "nope"}, False),
    "history_a_string": ("text", False),
    "history_null": (None, False),
    "items_not_objects": ([None, 3, "x", [], user("still read")], False),
    "compacted_cli": (
        [
            {
                "message": {"role": "assistant", "content": "the summary"},
                "contextItems": [],
                "conversationSummary": "the summary",
            },
            user("continue"),
        ],
        False,
    ),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_cases_read_the_same_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    history, history_first = EDGE_CASES[case]
    doc = session_doc("s", [])
    doc["title"] = "Untitled Session"
    write_session(tmp_path, raw(doc, history, history_first=history_first), "s")
    [(whole, streamed)] = read_both(tmp_path, monkeypatch)
    assert streamed == whole
    if case == "tool_item_after":
        assert whole.session is not None
        assert [r.output for r in whole.session.records if r.role == "command"] == [
            "README.md and more"
        ]


@pytest.mark.parametrize("text", ["[1, 2]", "42", '{"history": [', "", '{"history": [{"message"'])
def test_bad_documents_fail_as_whole_ones_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setattr(store, "RETRY_DELAY_S", 0)
    write_session(tmp_path, text, "s")
    [(whole, streamed)] = read_both(tmp_path, monkeypatch)
    assert whole.session is None and streamed.session is None
    [said_whole] = whole.diagnostics
    [said_streamed] = streamed.diagnostics
    # The parsers word a syntax error each their own way; what kind of failure it is matches.
    assert said_whole.message.split(":")[0] == said_streamed.message.split(":")[0]
    assert said_whole.message.endswith("(retried once; left for later)") == (
        said_streamed.message.endswith("(retried once; left for later)")
    )


def test_without_ijson_a_file_too_large_to_parse_whole_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deja.continue_store import stream

    write_session(tmp_path, session_doc("s", [user("hello there")]))
    [ref] = [ref for ref in list_store(tmp_path).refs if ref.file is not None]
    monkeypatch.setattr(stream, "available", lambda: False)
    monkeypatch.setattr(store, "STREAM_MIN_BYTES", 1)
    assert read_session(ref, max_bytes=ALL).session is not None  # small enough: parsed whole
    monkeypatch.setattr(store, "WHOLE_MAX_BYTES", 10)
    read = read_session(ref, max_bytes=ALL)
    assert read.session is None
    [said] = read.diagnostics
    assert "too large to parse whole, and ijson, which would stream it, is not installed" in (
        said.message
    )
