import assert from "node:assert/strict";
import { test } from "node:test";
import { eventState, fileEventItem, pastTitle } from "../../src/pastEdits/fileEvents";
import type { FileEvent } from "../../src/shared/protocol";

const NOW = Date.parse("2026-11-13T12:00:00Z");
const AT_LINE_8 = { start: { line: 7, character: 0 }, end: { line: 8, character: 0 } };

function event(extra: Partial<FileEvent> = {}): FileEvent {
  return {
    session_id: "s1",
    title: "Round prices",
    workspace: "/w",
    turn: 2,
    time: "2026-11-12T09:30:00Z",
    role: "edit",
    tool: "Edit",
    status: "done",
    path: "/w/src/pricing.py",
    compacted: false,
    request: "round it\nto cents",
    hunks: [{ replaced: "    return total\n", written: "    return round(total, 2)\n", range: AT_LINE_8 }],
    range: AT_LINE_8,
    changed: false,
    ...extra,
  };
}

const stands = event();
const changed = event({ changed: true });
const gone = event({ turn: 1, hunks: [{ replaced: "a", written: "b", range: null }], range: null });
const written = event({ turn: 0, tool: "Write", hunks: [{ replaced: null, written: "whole file", range: null }], range: null });
const read = event({ turn: 1, role: "read", tool: "Read", hunks: [], range: null });

void test("each event says where its text is now", () => {
  assert.equal(eventState(stands), "still at line 8");
  assert.equal(eventState(changed), "changed since, at line 8");
  assert.equal(eventState(gone), "no longer in the file");
  assert.equal(eventState(read), "read");
  assert.equal(eventState(event({ role: "attached", tool: null, hunks: [], range: null })), "attached");
});

void test("a row says each fact once: session and when, tool, state, turn; the request when it adds", () => {
  const row = fileEventItem(stands, NOW);
  assert.equal(row.label, "$(edit) Round prices · 1 day ago");
  assert.equal(row.description, "Edit · still at line 8 · turn 2");
  assert.equal(row.detail, "“round it to cents”");
  assert.equal(fileEventItem(changed, NOW).description, "Edit · changed since, at line 8 · turn 2");
  assert.equal(fileEventItem(written, NOW).description, "Write · no longer in the file · turn 0");
  // A read's tool already says it was read.
  assert.equal(fileEventItem(read, NOW).description, "Read · turn 1");
  assert.equal(fileEventItem(read, NOW).label, "$(eye) Round prices · 1 day ago");
  // No tool recorded: what the event did.
  assert.equal(fileEventItem(event({ tool: null }), NOW).description, "edited · still at line 8 · turn 2");
  assert.equal(fileEventItem(event({ tool: null, role: "read", hunks: [], range: null }), NOW).description, "read · turn 2");
  assert.equal(fileEventItem(event({ compacted: true, status: "errored" }), NOW).description, "Edit · still at line 8 · turn 2 · compacted · errored");
  // Not the request again under a title made from it (cn titles sessions so).
  assert.equal(fileEventItem(event({ title: "Round it to cents" }), NOW).detail, "");
  assert.equal(fileEventItem(event({ title: "Round it…" }), NOW).detail, "");
});

void test("the list's title counts edits, what still stands, and reads", () => {
  assert.equal(pastTitle("pricing.py", [stands, gone, read]), "pricing.py: 2 edits (1 still in the file) · 1 read");
  assert.equal(pastTitle("pricing.py", [stands]), "pricing.py: 1 edit (1 still in the file)");
  assert.equal(pastTitle("notes.md", [read, read]), "notes.md: 0 edits (0 still in the file) · 2 reads");
});
