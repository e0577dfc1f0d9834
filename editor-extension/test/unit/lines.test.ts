import assert from "node:assert/strict";
import { test } from "node:test";
import { LineSplitter } from "../../src/server/lines";

void test("stderr chunks become whole lines, a line cut across chunks once", () => {
  const lines = new LineSplitter();
  assert.deepEqual(lines.push("deja serve: pygls: one\ndeja serve: pyg"), ["deja serve: pygls: one"]);
  assert.deepEqual(lines.push("ls: two\r\n\n  \nTraceback"), ["deja serve: pygls: two"]);
  assert.deepEqual(lines.push(" (most recent call last):"), []);
  assert.equal(lines.end(), "Traceback (most recent call last):");
  assert.equal(lines.end(), undefined);
});
