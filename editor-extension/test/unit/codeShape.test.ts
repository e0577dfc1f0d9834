import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

// Compiled to out/test/unit: the sources are three folders up.
const SRC = join(__dirname, "..", "..", "..", "src");
const MOST_LINES = 350;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

void test(`no TypeScript file in src is over ${MOST_LINES} lines`, () => {
  const files = sources(SRC);
  assert.ok(files.length > 10, "the sources are found");
  const long = files
    .map((path) => ({ path: relative(SRC, path), lines: readFileSync(path, "utf8").split("\n").length - 1 }))
    .filter((file) => file.lines > MOST_LINES);
  assert.deepEqual(long, []);
});
