import assert from "node:assert/strict";
import { test } from "node:test";
import { copyTextOf, RESTORE_PLACEHOLDER, restoreParams, restorePath, unfence } from "../../src/restore/restoreParams";

const TRANSCRIPT = "# deja-restore-format: 1\n## Session 1 · Round prices\nuser: round it\n";

void test("restore params: the selection trimmed, the scope passed on", () => {
  assert.deepEqual(restoreParams("  1,3 : pricing ", "all"), { selection: "1,3 : pricing", scope: "all" });
  assert.deepEqual(restoreParams("", "workspace"), { selection: "", scope: "workspace" });
  assert.equal(RESTORE_PLACEHOLDER, "empty: list sessions · 1,3 · 1-4 · last · 1,3 : topic");
});

void test("the restore document's path names the selection, or the listing", () => {
  assert.equal(restorePath({ restored: ["a"] }, "last"), "/Restored context (last).txt");
  assert.equal(restorePath({ restored: ["a"] }, "1/2\\3   x"), "/Restored context (1 2 3 x).txt");
  assert.equal(restorePath({ restored: [] }, ""), "/Sessions to restore.txt");
});

void test("unfence takes the inside of one code fence; other markdown stays", () => {
  assert.equal(unfence("```text\n 1  Round prices\n 2  Add a code\n```\n"), " 1  Round prices\n 2  Add a code\n");
  assert.equal(unfence("```\nx\n```"), "x\n");
  assert.equal(unfence("# Title\n\ntext\n"), "# Title\n\ntext\n");
});

void test("Copy copies the plain transcript, else the listing, else the message", () => {
  assert.deepEqual(copyTextOf({ text: TRANSCRIPT, markdown: "```text\n" + TRANSCRIPT + "```\n", message: "" }), {
    text: TRANSCRIPT,
    what: "the restored context",
  });
  assert.deepEqual(copyTextOf({ text: "", markdown: "```text\n 1  Round prices\n```\n", message: "" }), {
    text: " 1  Round prices\n",
    what: "the session listing",
  });
  assert.equal(copyTextOf({ text: "", markdown: "", message: "No Continue session here yet." }).text, "No Continue session here yet.");
});
