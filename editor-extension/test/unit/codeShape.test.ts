import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
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

// The layout: the server's plumbing in src/server/, each feature in its own folder, and only
// the entry point and the command table beside them.
const TOP_LEVEL = ["commands.ts", "extension.ts"];
const SERVER_ONLY = [/from "vscode-languageclient/, /from "node:child_process"/];

void test("src holds folders, and only the entry point and the command table beside them", () => {
  const loose = readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => entry.name);
  assert.deepEqual(loose.sort(), TOP_LEVEL);
});

void test("only src/server/ starts processes or speaks to the language client", () => {
  const outside = sources(SRC)
    .filter((path) => !relative(SRC, path).startsWith(`server${sep}`))
    .filter((path) => SERVER_ONLY.some((pattern) => pattern.test(readFileSync(path, "utf8"))))
    .map((path) => relative(SRC, path));
  assert.deepEqual(outside, []);
});
