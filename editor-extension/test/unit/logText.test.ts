import assert from "node:assert/strict";
import { test } from "node:test";
import { logText } from "../../src/server/logText";

void test("a language client log entry: the message, then what came with it", () => {
  assert.equal(logText("Connection to server got closed."), "Connection to server got closed.");
  assert.equal(logText("Request failed", "no such session"), "Request failed\nno such session");
  const response = Object.assign(new Error("no turn 9"), { code: -32602 });
  assert.equal(logText("Request deja/session failed.", response), "Request deja/session failed.\nno turn 9 (code -32602)");
  assert.match(logText("Crashed", new Error("boom")), /^Crashed\nError: boom\n\s+at /);
  assert.equal(logText("Got", { a: 1 }), 'Got\n{"a":1}');
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.equal(logText("Got", cycle), "Got\n[object Object]");
  assert.equal(logText("same", "same"), "same");
});
