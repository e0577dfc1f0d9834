/* The contract with the Python sidecar: each fixture is exactly what `deja serve` sent for one
 * `deja/…` result or notification (tests/contract/test_wire_contract.py writes them and fails when a
 * shape changes). Each is assigned to the protocol.ts type the extension reads it as — tsc fails
 * on a missing or mistyped field — and goes through the pure code that reads it. */

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  diffSides,
  diffTitle,
  hitItem,
  sessionDescription,
  sessionTooltip,
  standingRanges,
  turnDescription,
  turnLabel,
} from "../../src/shared/format";
import { fileEventItem } from "../../src/pastEdits/fileEvents";
import { forkPlan } from "../../src/actions/fork";
import { fixedBefore, fixHint } from "../../src/fixThis/fixRequest";
import type {
  FilesResult,
  FixResult,
  FileHistoryResult,
  ForkCommandResult,
  IndexChanged,
  RestoreResult,
  SearchResult,
  SessionResult,
  SessionsResult,
  SessionViewResult,
  StoreStatus,
} from "../../src/shared/protocol";
import { turnsHtml } from "../../src/sessionView/sessionHtml";
import { copyTextOf, restorePath } from "../../src/restore/restoreParams";
import { parseStoreStatus, storeProblemLook } from "../../src/server/storeStatus";
import fileHistoryFixture from "../fixtures/protocol/fileHistory.json";
import filesFixture from "../fixtures/protocol/files.json";
import fixFixture from "../fixtures/protocol/fix.json";
import forkCommandFixture from "../fixtures/protocol/forkCommand.json";
import indexChangedFixture from "../fixtures/protocol/indexChanged.json";
import restoreListingFixture from "../fixtures/protocol/restore-listing.json";
import restoreTranscriptFixture from "../fixtures/protocol/restore-transcript.json";
import searchApproximateFixture from "../fixtures/protocol/search-approximate.json";
import searchFixture from "../fixtures/protocol/search.json";
import sessionForkFixture from "../fixtures/protocol/session-fork.json";
import sessionFixture from "../fixtures/protocol/session.json";
import sessionsFixture from "../fixtures/protocol/sessions.json";
import sessionViewForkFixture from "../fixtures/protocol/sessionView-fork.json";
import sessionViewFixture from "../fixtures/protocol/sessionView.json";
import storeAppliedFixture from "../fixtures/protocol/storeStatus-applied.json";
import storeRefusedFixture from "../fixtures/protocol/storeStatus-refused.json";

/** The fields of `F` (a fixture) that `T` does not declare, all the way down; never if none. */
type Undeclared<T, F> = F extends readonly (infer E)[]
  ? T extends readonly (infer TE)[]
    ? Undeclared<TE, E>
    : never
  : F extends object
    ? unknown extends T
      ? never
      : { [K in keyof F]: K extends keyof NonNullable<T> ? Undeclared<NonNullable<T>[K], F[K]> : K }[keyof F]
    : never;

/** A fixture as `T`, checked both ways: tsc fails on a field `T` needs that it lacks or has of
 * another type, and on a field it has that `T` does not declare (the error names the field). */
function typed<T>() {
  return <F extends T>(fixture: F & ([Undeclared<T, F>] extends [never] ? unknown : { undeclared: Undeclared<T, F> })): T =>
    fixture;
}

const NOW = Date.parse("2025-11-14T09:30:00Z");
const EDIT_SESSION = "5c0ffee0-1111-4aaa-8bbb-000000000001";

void test("deja/search results read as quick pick rows", () => {
  const result = typed<SearchResult>()(searchFixture);
  const approximate = typed<SearchResult>()(searchApproximateFixture);
  const items = result.hits.map((hit) => hitItem(hit, NOW));
  assert.equal(items.length, 2);
  assert.equal(items[0].label, "$(account) Make parse_config close its file");
  assert.equal(items[0].description, "user · turn 0 · proj · 2025-06-18");
  assert.equal(items[0].detail, "parse_config leaks a file handle, fix it");
  assert.ok(items[1].description.startsWith("edit · turn 4 · "), items[1].description);
  assert.equal(result.hits[1].file, "/home/u/proj/CHANGELOG.md");
  assert.equal(approximate.approximate, true);
  assert.deepEqual(approximate.notes, ["no exact match; approximate hits (helth → health)"]);
  assert.equal(hitItem(approximate.hits[0], NOW).detail, "add a health endpoint");
});

void test("deja/sessions results read as the tree's sessions", () => {
  const result = typed<SessionsResult>()(sessionsFixture);
  assert.deepEqual(
    result.sessions.map((session) => [session.current, sessionDescription(session, NOW)]),
    [
      [true, "1 day ago"],
      [false, "2 days ago"],
    ],
  );
  assert.ok(sessionTooltip(result.sessions[0]).includes(`id ${EDIT_SESSION}`));
});

void test("a fork's deja/session result names its parent and holds only its own turns", () => {
  const result = typed<SessionResult>()(sessionForkFixture);
  assert.equal(result.session.forked_from, EDIT_SESSION);
  assert.deepEqual(
    result.turns.map((turn) => turn.turn),
    [5, 6],
  );
  assert.equal(sessionDescription(result.session, NOW).endsWith(" · fork of 5c0ffee0"), true);
  assert.ok(
    sessionTooltip(result.session).includes("forked from Make parse_config close its file (5c0ffee0) at turn 5"),
  );
  assert.ok(result.markdown.includes("forked from Make parse\\_config close its file (5c0ffee0) at turn 5"));
});

void test("a deja/session result reads as the tree's turns", () => {
  const result = typed<SessionResult>()(sessionFixture);
  assert.equal(result.session.id, EDIT_SESSION);
  assert.deepEqual(
    result.turns.map((turn) => turnLabel(turn)),
    [
      "Turn 0 · parse_config leaks a file handle, fix it",
      "Turn 1 · Let me read it.",
      "Turn 2 · Now it closes the file.",
      "Turn 3 · also note it in the changelog",
      "Turn 4 · edited CHANGELOG.md",
    ],
  );
  assert.equal(turnDescription(result.turns[2], NOW), "2025-06-18 · 1 tool call");
  assert.ok(result.markdown.startsWith("# Make parse\\_config close its file\n"));
});

void test("a deja/fileHistory result reads as past edits with their ranges", () => {
  const result = typed<FileHistoryResult>()(fileHistoryFixture);
  const [edit, read] = result.events;
  assert.equal(fileEventItem(edit, NOW).description, "Edit · still at line 5 · turn 2");
  assert.equal(fileEventItem(read, NOW).description, "Read · turn 1");
  assert.equal(fileEventItem(edit, NOW).detail, "“parse_config leaks a file handle, fix it”");
  assert.equal(edit.changed, false);
  assert.deepEqual(standingRanges(result.events), [{ start: { line: 4, character: 0 }, end: { line: 5, character: 32 } }]);
  assert.equal(diffSides(edit.hunks).replaced, "    return json.load(open(path))\n");
  assert.equal(diffTitle(edit), "Make parse_config close its file · 2025-06-18 16:00 UTC — config.py (replaced ↔ written)");
});

void test("a deja/forkCommand result becomes the terminal's command line", () => {
  const result = typed<ForkCommandResult>()(forkCommandFixture);
  const plan = forkPlan(result, "Make parse_config close its file", undefined, "linux");
  assert.equal(plan.line, `cn --fork ${EDIT_SESSION}`);
  assert.equal(plan.cwd, "/home/u/proj");
  assert.equal(plan.cwdNote, undefined);
});

void test("deja/restore results: the listing and a transcript", () => {
  const listing = typed<RestoreResult>()(restoreListingFixture);
  const transcript = typed<RestoreResult>()(restoreTranscriptFixture);
  assert.equal(listing.listing[0].number, 1);
  assert.equal(listing.listing[0].title, "Add a health endpoint");
  assert.equal(restorePath(listing, ""), "/Sessions to restore.txt");
  assert.ok(copyTextOf(listing).text.startsWith("Sessions in all workspaces, newest first"));
  assert.equal(restorePath(transcript, "last"), "/Restored context (last).txt");
  assert.deepEqual(copyTextOf(transcript), { text: transcript.text, what: "the restored context" });
  assert.ok(transcript.text.startsWith("# deja-restore-format: 1\n"));
});

void test("deja/indexChanged names the sessions", () => {
  const changed = typed<IndexChanged>()(indexChangedFixture);
  assert.deepEqual(changed.sessions, [EDIT_SESSION, "5c0ffee0-2222-4aaa-8bbb-000000000002"]);
});

type ReceivedStatus = Omit<StoreStatus, "problem"> & { problem: string | null };

void test("deja/storeStatus parses as the status bar's look", () => {
  // JSON modules type `problem` as a string: the extension parses it (parseStoreStatus), so the
  // fixtures are typed as what it receives and checked through that.
  const refusedRaw = typed<ReceivedStatus>()(storeRefusedFixture);
  const appliedRaw = typed<ReceivedStatus>()(storeAppliedFixture);
  const refused = parseStoreStatus(refusedRaw);
  assert.deepEqual(refused, refusedRaw);
  assert.equal(refused === undefined ? undefined : storeProblemLook(refused)?.text, "$(warning) Deja: store missing");
  assert.deepEqual(parseStoreStatus(appliedRaw), appliedRaw);
});

void test("deja/fix results: a failure never fixed offers no hint", () => {
  const result = typed<FixResult>()(fixFixture);
  assert.equal(result.error, "ModuleNotFoundError: No module named 'yaml'");
  assert.equal(result.failures[0].fixed, false);
  assert.equal(fixedBefore(result), undefined);
  assert.equal(fixHint(result, "pip install pyyaml"), undefined);
  assert.ok(result.markdown.includes("never fixed in that session"));
});

void test("deja/files results list the most worked-on file first", () => {
  const result = typed<FilesResult>()(filesFixture);
  assert.deepEqual(result.files.map((file) => file.relative), ["src/config.py", "CHANGELOG.md"]);
  assert.equal(result.files[0].sessions[0].session_id, EDIT_SESSION);
});

void test("deja/sessionView pages render as the session view's turns, a fork's copied turns folded", () => {
  const page = typed<SessionViewResult>()(sessionViewFixture);
  assert.deepEqual([page.offset, page.total_turns, page.turns.length], [0, 5, 5]);
  const html = turnsHtml(page, null);
  assert.match(html, /edited <code title="\/home\/u\/proj\/src\/config.py">src\/config.py<\/code> \(<span class="add">\+2<\/span> <span class="del">−1<\/span>\)/);
  assert.match(html, /read <code title="\/home\/u\/proj\/src\/config.py">src\/config.py<\/code>/);
  const fork = typed<SessionViewResult>()(sessionViewForkFixture);
  assert.deepEqual(
    fork.turns.map((turn) => turn.inherited),
    [true, true, true, true, true, false, false],
  );
  const forkHtml = turnsHtml(fork, null);
  assert.equal(forkHtml.match(/<details class="inherited">/g)?.length, 1);
  assert.match(forkHtml, /<summary>from Make parse_config close its file <span class="count">\(5 inherited turns\)<\/span><\/summary>/);
});
