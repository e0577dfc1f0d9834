import assert from "node:assert/strict";
import { test } from "node:test";
import { fixDocumentPath, fixHint, MAX_ERROR_CHARS, terminalText } from "../../src/fixThis/fixRequest";
import type { FixResult, PastFailure } from "../../src/shared/protocol";

function failure(fixed: boolean, confirmed: boolean, title: string): PastFailure {
  return {
    session_id: "s1", title, workspace: "/w/shop", project: "shop", turn: 2, time: null,
    call: "python3 check.py", exit_code: 1, status: "errored", error: "ModuleNotFoundError: x",
    similarity: 1, attempts: 1, fixed, confirmed, steps: [], passed_by: null, same_fix: 0,
  };
}

function result(...failures: PastFailure[]): FixResult {
  return { error: "ModuleNotFoundError: x", total: failures.length, notes: [], failures, markdown: "" };
}

void test("terminal output loses its escapes, carriage-return overwrites and VS Code's marks", () => {
  const raw = "\u001b]633;C\u0007\u001b[31mTraceback\u001b[0m\r\n50%\r100%\nModuleNotFoundError: No module named 'x'\u001b]633;D;1\u0007";
  assert.equal(terminalText(raw), "Traceback\n100%\nModuleNotFoundError: No module named 'x'");
  assert.equal(terminalText("x".repeat(MAX_ERROR_CHARS + 10)).length, MAX_ERROR_CHARS);
});

void test("the hint offers the best fixed failure, and none when nothing was fixed", () => {
  assert.equal(fixHint(result(failure(false, false, "Broken")), "make"), undefined);
  const hint = fixHint(result(failure(false, false, "Broken"), failure(true, true, "Fix the checker")), "python3 check.py");
  assert.equal(hint?.text, "$(history) Fixed before");
  assert.match(hint?.tooltip ?? "", /`python3 check\.py` was fixed before, in “Fix the checker” \(shop\)/);
  const probably = fixHint(result(failure(true, false, "Maybe")), "x".repeat(80));
  assert.match(probably?.tooltip ?? "", /x{59}…` was probably fixed before/);
  assert.equal(fixDocumentPath("terminal", 3), "/What fixed this before (terminal) 3.md");
});
