import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Commands } from "../../src/shared/protocol";

interface Manifest {
  contributes: { commands: { command: string }[] };
}

// Compiled to out/test/unit: package.json is three folders up.
const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as Manifest;

void test("package.json contributes exactly the commands the extension registers", () => {
  const contributed = manifest.contributes.commands.map((entry) => entry.command).sort();
  assert.deepEqual(contributed, Object.values(Commands).sort());
});
