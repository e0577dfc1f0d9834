/* Recover into Continue and Export Session… (src/share/shareResults.ts, the session view's header): the
 * header offers Recover only for a session Continue no longer holds whole, Export always; the
 * words of a recovery and of the "Kept by Deja" group. */

import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionSummary } from "../../src/shared/protocol";
import { headerHtml } from "../../src/sessionView/sessionPage";
import { copyWouldHelp, keptByDejaLabel, lostDescription, notWholeInContinue, recoveredMessage, type LostSession, type RecoverResult } from "../../src/share/shareResults";

const SESSION: SessionSummary = {
  id: "5c0ffee0-1111-4aaa-8bbb-000000000001",
  title: "Make parse_config close its file",
  workspace: "/home/u/proj",
  project: "proj",
  started: "2025-06-18T10:00:00Z",
  last_active: "2025-06-18T11:00:00Z",
  first_user: null,
  last_user: null,
  message_count: 4,
  size: 2048,
  lost_context: false,
  kept_turns: 0,
  deleted: false,
  current: false,
};

void test("Recover into Continue is offered only for what Continue lost; Export always", () => {
  const whole = headerHtml(SESSION);
  assert.doesNotMatch(whole, /data-action="recover"/);
  assert.match(whole, /<button type="button" data-action="export">Export Session…<\/button>/);
  // An IDE compaction keeps every turn in the file: still whole.
  assert.doesNotMatch(headerHtml({ ...SESSION, lost_context: true }), /data-action="recover"/);
  for (const lost of [{ ...SESSION, deleted: true }, { ...SESSION, lost_context: true, kept_turns: 3 }]) {
    assert.ok(notWholeInContinue(lost));
    assert.match(headerHtml(lost), /<button type="button" data-action="recover">Recover into Continue<\/button>/);
  }
});

void test("a recovery says what was written, that it is redacted, and how to go on", () => {
  const result: RecoverResult = {
    session: SESSION.id,
    new_id: "9f1c2d3e-0000-4000-8000-000000000009",
    written: true,
    file: "/home/u/.continue/sessions/9f1c2d3e-0000-4000-8000-000000000009.json",
    list_file: "/home/u/.continue/sessions/sessions.json",
    entry: { sessionId: "9f1c2d3e-0000-4000-8000-000000000009", title: "Make parse_config close its file (recovered)", dateCreated: "1763112600000", workspaceDirectory: "/home/u/proj", messageCount: 3 },
    title: "Make parse_config close its file (recovered)",
    turns: 7,
    only_deja: 1,
    fork: { line: "cd /home/u/proj && cn --fork 9f1c2d3e-0000-4000-8000-000000000009", argv: ["cn", "--fork", "9f1c2d3e-0000-4000-8000-000000000009"], cwd: "/home/u/proj" },
    redacted: true,
  };
  const message = recoveredMessage(result);
  assert.match(message, /“Make parse_config close its file \(recovered\)” \(7 turns, 1 turn only Deja held; secrets redacted\)/);
  assert.ok(message.endsWith("cd /home/u/proj && cn --fork 9f1c2d3e-0000-4000-8000-000000000009"));
});

void test("the Kept by Deja group counts its sessions and says why each is there", () => {
  assert.equal(keptByDejaLabel(0), "Kept by Deja");
  assert.equal(keptByDejaLabel(2), "Kept by Deja (2)");
  const gone: LostSession = { ...SESSION, deleted: true, lost: "deleted", only_deja: 5, recovered_as: null };
  assert.equal(lostDescription(gone), "file gone · 5 turns only in Deja");
  assert.equal(lostDescription({ ...gone, lost: "compacted", only_deja: 1 }), "compacted · 1 turn only in Deja");
  assert.equal(lostDescription({ ...gone, recovered_as: "9f1c2d3e-0000-4000-8000-000000000009" }), "file gone · 5 turns only in Deja · recovered");
});

void test("Recover a Copy is offered when a copy gets past the refusal, not for other errors", () => {
  assert.ok(copyWouldHelp("deja/recover: nothing to recover: Continue still holds session x whole (--copy writes a copy anyway)"));
  assert.ok(copyWouldHelp("deja/recover: already recovered: Continue holds it as session y (--copy writes another)"));
  assert.ok(!copyWouldHelp("deja/recover: /s/sessions.json does not parse as JSON: left as it is, nothing written"));
});
