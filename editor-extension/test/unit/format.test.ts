import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ago,
  diffSides,
  diffTitle,
  forkLine,
  hitBadges,
  hitItem,
  indexingText,
  oneLine,
  plainSnippet,
  repeatsTitle,
  sessionDescription,
  sessionsText,
  standingRanges,
  turnLabel,
  when,
} from "../../src/shared/format";
import type { FileEvent, SearchHit, SessionSummary } from "../../src/shared/protocol";

const NOW = Date.parse("2026-11-13T12:00:00Z");

function hit(extra: Partial<SearchHit> = {}): SearchHit {
  return {
    session_id: "e5a07c33-1f6b-4d28-b9e4-6c2a8d0f1e03",
    title: "Make parse_config close its file",
    workspace: "/home/dev/api",
    project: "api",
    turn: 2,
    time: "2026-11-10T09:30:00Z",
    role: "edit",
    snippet: "def **parse_config**(path):",
    snippet_text: "def parse_config(path):",
    highlights: [[4, 16]],
    file: "/home/dev/api/src/config.py",
    exit_code: null,
    status: "done",
    compacted: false,
    deleted: false,
    score: 4.2,
    meaning_only: false,
    ...extra,
  };
}

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
    hunks: [{ replaced: "    return total\n", written: "    return round(total, 2)\n", range: { start: { line: 7, character: 0 }, end: { line: 8, character: 0 } } }],
    range: { start: { line: 7, character: 0 }, end: { line: 8, character: 0 } },
    changed: false,
    ...extra,
  };
}

void test("relative times", () => {
  assert.equal(ago("2026-11-13T11:59:30Z", NOW), "just now");
  assert.equal(ago("2026-11-13T11:59:00Z", NOW), "1 minute ago");
  assert.equal(ago("2026-11-13T09:00:00Z", NOW), "3 hours ago");
  assert.equal(ago("2026-11-10T12:00:00Z", NOW), "3 days ago");
  assert.equal(ago("2026-01-02T12:00:00Z", NOW), "2026-01-02");
  assert.equal(ago(null, NOW), "unknown time");
  assert.equal(ago("not a date", NOW), "unknown time");
  assert.equal(when("2026-11-13T09:30:12Z"), "2026-11-13 09:30 UTC");
});

void test("one line, cut at a word", () => {
  assert.equal(oneLine("a\n  b\tc"), "a b c");
  assert.equal(oneLine("alpha beta gamma delta", 12), "alpha beta…");
  assert.equal(oneLine(null), "");
});

void test("a search hit: short title, then the badges that matter before project and time, a plain snippet", () => {
  assert.equal(plainSnippet("x **parse_config** y"), "x parse_config y");
  const item = hitItem(hit(), NOW);
  assert.equal(item.label, "$(edit) Make parse_config close its file");
  assert.equal(item.description, "edit · turn 2 · api · 3 days ago");
  assert.equal(item.detail, "def parse_config(path):");
  assert.equal(hitItem(hit({ title: "", project: "" }), NOW).description, "edit · turn 2 · /home/dev/api · 3 days ago");
  const long = hitItem(hit({ title: "Run the whole integration suite against the staging database again", role: "command", exit_code: 3, status: "errored" }), NOW);
  assert.equal(long.label, "$(terminal) Run the whole integration suite…");
  assert.ok(long.description.startsWith("exit 3 ✗ · errored · command"), long.description);
});

void test("badges: exit codes, failures, compacted, deleted come before role and turn", () => {
  assert.deepEqual(hitBadges(hit({ role: "command", exit_code: 1, status: "errored" })), ["exit 1 ✗", "errored", "command", "turn 2"]);
  assert.deepEqual(hitBadges(hit({ role: "command", exit_code: 0 })), ["exit 0", "command", "turn 2"]);
  assert.deepEqual(hitBadges(hit({ role: "user", status: null, compacted: true, deleted: true })), ["compacted", "deleted", "user", "turn 2"]);
  assert.deepEqual(hitBadges(hit({ role: "assistant", status: null, meaning_only: true })), ["by meaning", "assistant", "turn 2"]);
});

void test("sessions in the tree mark compaction", () => {
  const session: SessionSummary = {
    id: "s1", title: "T", workspace: "/w", project: "w", started: "2026-11-12T12:00:00Z", last_active: "2026-11-13T10:00:00Z",
    first_user: "a", last_user: "b", message_count: 3, size: 10, lost_context: true, kept_turns: 4, deleted: false, current: true,
  };
  assert.equal(sessionDescription(session, NOW), "2 hours ago · compacted · 4 turns only in Deja");
  assert.equal(sessionDescription({ ...session, lost_context: false }, NOW), "2 hours ago");
});

void test("a fork says whose it is", () => {
  const session: SessionSummary = {
    id: "s2", title: "T", workspace: "/w", project: "w", started: "2026-11-12T12:00:00Z", last_active: "2026-11-13T10:00:00Z",
    first_user: "a", last_user: "b", message_count: 3, size: 10, lost_context: false, kept_turns: 0, deleted: false, current: false,
    forked_from: "5c0ffee0-1111-4aaa-8bbb-000000000001", forked_from_title: "Fix  the\nparser", fork_turn: 4,
  };
  assert.equal(forkLine(session), "forked from Fix the parser (5c0ffee0) at turn 4");
  assert.equal(sessionDescription(session, NOW), "2 hours ago · fork of 5c0ffee0");
  assert.equal(forkLine({ ...session, forked_from: null }), "");
  assert.equal(forkLine({ ...session, forked_from: undefined, forked_from_title: undefined, fork_turn: undefined }), "");
});

void test("a turn is labelled by its request, else its first text", () => {
  const record = (role: string, text: string | null) => ({ turn: 3, role, time: null, text, tool: null, status: null, path: null, exit_code: null, compacted: false });
  assert.equal(turnLabel({ turn: 3, time: null, compacted: false, records: [record("edit", "x"), record("user", "fix\nthe bug")] }), "Turn 3 · fix the bug");
  assert.equal(turnLabel({ turn: 4, time: null, compacted: false, records: [record("command", "npm test")] }), "Turn 4 · npm test");
  assert.equal(turnLabel({ turn: 5, time: null, compacted: false, records: [] }), "Turn 5");
  const read = { ...record("read", "Read /w/src/pricing.py"), path: "/w/src/pricing.py" };
  assert.equal(turnLabel({ turn: 6, time: null, compacted: false, records: [read] }), "Turn 6 · read pricing.py");
  const edit = { ...record("edit", null), path: "C:\\w\\app.ts" };
  assert.equal(turnLabel({ turn: 7, time: null, compacted: false, records: [edit] }), "Turn 7 · edited app.ts");
});

void test("a request repeats a title made from it, even cut, and not another title", () => {
  assert.ok(repeatsTitle("Fix the  flaky\ntest", "fix the flaky test"));
  assert.ok(repeatsTitle("Fix the flaky test in ci", "Fix the flaky…"));
  assert.ok(repeatsTitle("Fix the flaky test in ci", "Fix the flaky..."));
  assert.ok(!repeatsTitle("Fix the flaky test", "Speed up the build"));
  assert.ok(!repeatsTitle("Fix the flaky test", ""));
  assert.ok(!repeatsTitle("Fix", "Fix the flaky test"));
});

void test("past edits: standing ranges and diff sides", () => {
  const stands = event();
  const gone = event({ turn: 1, hunks: [{ replaced: "a", written: "b", range: null }], range: null });
  const written = event({ turn: 0, hunks: [{ replaced: null, written: "whole file", range: null }], range: null });
  assert.deepEqual(standingRanges([stands, gone, stands]), [stands.range]);
  assert.deepEqual(diffSides(written.hunks), { replaced: "", written: "whole file\n" });
  assert.deepEqual(diffSides([{ replaced: "a", written: "b", range: null }, { replaced: "c\n", written: "d\n", range: null }]), { replaced: "a\n\n⋯\nc\n", written: "b\n\n⋯\nd\n" });
  assert.equal(diffTitle(stands), "Round prices · 2026-11-12 09:30 UTC — pricing.py (replaced ↔ written)");
});

void test("status bar texts", () => {
  assert.equal(indexingText("12/340 sessions", 3), "$(sync~spin) Deja: indexing 12/340 sessions");
  assert.equal(indexingText(undefined, 42.4), "$(sync~spin) Deja: indexing 42%");
  assert.equal(sessionsText(1, false), "$(history) Deja: 1 session");
  assert.equal(sessionsText(500, true), "$(history) Deja: 500+ sessions");
});
