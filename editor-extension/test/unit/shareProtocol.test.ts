/* The contract for Recover into Continue, Kept by Deja and Export Session…: each fixture is
 * what `deja serve` sent (tests/contract/test_wire_contract.py), assigned to its type in src/share/shareResults.ts —
 * tsc fails on a missing, mistyped or undeclared field — and read by the code that shows it. */

import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExportResult, LostSessionsResult, RecoverResult } from "../../src/share/shareResults";
import { lostDescription, recoveredMessage } from "../../src/share/shareResults";
import exportFixture from "../fixtures/protocol/export-md.json";
import lostFixture from "../fixtures/protocol/lostSessions.json";
import recoverFixture from "../fixtures/protocol/recover-dryRun.json";

/** The fields of `F` (a fixture) that `T` does not declare, all the way down (as protocol.test.ts). */
type Undeclared<T, F> = F extends readonly (infer E)[]
  ? T extends readonly (infer TE)[]
    ? Undeclared<TE, E>
    : never
  : F extends object
    ? unknown extends T
      ? never
      : { [K in keyof F]: K extends keyof NonNullable<T> ? Undeclared<NonNullable<T>[K], F[K]> : K }[keyof F]
    : never;

function typed<T>() {
  return <F extends T>(fixture: F & ([Undeclared<T, F>] extends [never] ? unknown : { undeclared: Undeclared<T, F> })): T =>
    fixture;
}

const OTHER_SESSION = "5c0ffee0-2222-4aaa-8bbb-000000000002";

void test("deja/lostSessions reads as the Kept by Deja group", () => {
  const result = typed<LostSessionsResult>()(lostFixture as LostSessionsResult & typeof lostFixture);
  assert.deepEqual(
    result.sessions.map((session) => [session.id, lostDescription(session)]),
    [[OTHER_SESSION, "file gone · 2 turns only in Deja"]],
  );
});

void test("a deja/recover dry run reads as the recovery's message, with the file it would write", () => {
  const result = typed<RecoverResult>()(recoverFixture);
  assert.equal(result.written, false);
  assert.equal(result.document?.sessionId, result.new_id);
  assert.equal(result.entry.title, "Add a health endpoint (recovered)");
  assert.match(recoveredMessage(result), /\(2 turns, 2 turns only Deja held; secrets redacted\)\. .* cn --fork 9f1c2d3e-/);
});

void test("a deja/export result is the file to save and the name to offer", () => {
  const result = typed<ExportResult>()(exportFixture as ExportResult & typeof exportFixture);
  assert.equal(result.name, "deja-session-5c0ffee0.md");
  assert.ok(result.text.startsWith("# Add a health endpoint\n"));
});
