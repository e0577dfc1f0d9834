import assert from "node:assert/strict";
import { test } from "node:test";
import { parseStoreStatus, storeProblemLook } from "../../src/server/storeStatus";

const MISSING =
  "there is no Continue session store at /home/dev/.continue/sessions; not applied: the index keeps its 12 sessions as they were (set DEJA_CONTINUE_ROOT or CONTINUE_GLOBAL_DIR to where Continue keeps it)";

void test("a refused store reads as a warning that says what and that nothing was lost", () => {
  const look = storeProblemLook({ ok: false, problem: "missing", message: MISSING });
  assert.ok(look !== undefined);
  assert.equal(look.text, "$(warning) Deja: store missing");
  assert.ok(look.tooltip.includes(MISSING), look.tooltip);
  assert.ok(look.tooltip.includes("answers come from what was indexed before"), look.tooltip);
  assert.equal(storeProblemLook({ ok: false, problem: "empty", message: "x" })?.text, "$(warning) Deja: store empty");
  assert.equal(
    storeProblemLook({ ok: false, problem: "unreadable", message: "x" })?.text,
    "$(warning) Deja: store unreadable",
  );
});

void test("a store applied again clears the warning", () => {
  assert.equal(storeProblemLook({ ok: true, problem: null, message: null }), undefined);
});

void test("deja/storeStatus params are checked, not trusted", () => {
  assert.deepEqual(parseStoreStatus({ ok: false, problem: "missing", message: MISSING }), {
    ok: false,
    problem: "missing",
    message: MISSING,
  });
  assert.deepEqual(parseStoreStatus({ ok: true, problem: null, message: null }), { ok: true, problem: null, message: null });
  for (const bad of [null, 3, {}, { ok: "no" }, { ok: false, problem: "gone", message: "x" }, { ok: false, problem: "empty" }]) {
    assert.equal(parseStoreStatus(bad), undefined, JSON.stringify(bad));
  }
});
