import assert from "node:assert/strict";
import { test } from "node:test";
import { candidates, noPythonMessage, parseProbe, probeText, serverEnvironment, usable, withPythonPath, type Bundle } from "../../src/server/interpreter";

const bundle: Bundle = { root: "/ext/bundled", hasLibs: true, orjsonTags: ["cp311", "cp312"], separator: "/", pathDelimiter: ":" };

void test("the probe's answer is parsed; only 3.11 or newer is usable", () => {
  assert.deepEqual(parseProbe("deja-probe 3 12 1 0\n"), { major: 3, minor: 12, micro: 1, hasDeja: false });
  assert.equal(parseProbe("Python 2.7.18"), undefined);
  assert.equal(usable(parseProbe("deja-probe 3 11 0 0")), true);
  assert.equal(usable(parseProbe("deja-probe 3 10 12 1")), false);
  assert.equal(usable(parseProbe("deja-probe 4 0 0 0")), true);
  assert.equal(usable(undefined), false);
});

void test("candidates: Python Environments, then the Python extension, then python3, python, py -3; no repeats", () => {
  const list = candidates(["/env/bin/python"], ["/env/bin/python"]);
  assert.deepEqual(list.map((c) => [c.source, c.argv.join(" ")]), [
    ["Python Environments extension", "/env/bin/python"],
    ["PATH", "python3"],
    ["PATH", "python"],
    ["PATH", "py -3"],
  ]);
  assert.deepEqual(candidates(undefined, ["/venv/bin/python"])[0], { argv: ["/venv/bin/python"], source: "Python extension" });
  assert.equal(candidates([""], undefined)[0].argv[0], "python3");
});

void test("useBundled puts bundled/libs and this CPython's orjson first", () => {
  const env = serverEnvironment("useBundled", parseProbe("deja-probe 3 12 0 1"), bundle);
  assert.deepEqual(env.pythonPath, ["/ext/bundled/libs", "/ext/bundled/orjson/cp312"]);
  assert.match(env.note, /orjson for cp312/);
  const noWheel = serverEnvironment("useBundled", parseProbe("deja-probe 3 13 0 0"), bundle);
  assert.deepEqual(noWheel.pythonPath, ["/ext/bundled/libs"]);
  assert.match(noWheel.note, /standard library's json \(no orjson for cp313/);
  const universal = serverEnvironment("useBundled", parseProbe("deja-probe 3 11 2 0"), { ...bundle, orjsonTags: [] });
  assert.match(universal.note, /carries no orjson/);
});

void test("fromEnvironment runs the interpreter's own Deja, else falls back to the bundled one", () => {
  assert.deepEqual(serverEnvironment("fromEnvironment", parseProbe("deja-probe 3 12 0 1"), bundle).pythonPath, []);
  const fallback = serverEnvironment("fromEnvironment", parseProbe("deja-probe 3 12 0 0"), bundle);
  assert.deepEqual(fallback.pythonPath, ["/ext/bundled/libs", "/ext/bundled/orjson/cp312"]);
  assert.match(fallback.note, /has no Deja: the bundled server/);
  assert.deepEqual(serverEnvironment("useBundled", undefined, { ...bundle, hasLibs: false }).pythonPath, []);
});

void test("PYTHONPATH keeps what the user had, after the bundle", () => {
  assert.equal(withPythonPath("/mine", ["/a", "/b"], ":"), "/a:/b:/mine");
  assert.equal(withPythonPath(undefined, ["/a"], ";"), "/a");
  assert.equal(withPythonPath("/mine", [], ":"), "/mine");
});

void test("no Python: one message saying what to install, per platform, and what was tried", () => {
  const linux = noPythonMessage(["python3 (not found)"], "linux");
  assert.match(linux, /Python 3\.11 or newer/);
  assert.match(linux, /apt install python3/);
  assert.match(linux, /deja\.server\.python/);
  assert.match(linux, /Tried: python3 \(not found\)/);
  assert.match(noPythonMessage([], "win32"), /winget install Python\.Python/);
  assert.match(noPythonMessage([], "darwin"), /brew install/);
});

void test("the probe names the interpreter's absolute path, spaces and all", () => {
  const found = parseProbe("deja-probe 3 11 2 1 /opt/My Pythons/bin/python3.11\r\n");
  assert.ok(found !== undefined);
  assert.equal(found.executable, "/opt/My Pythons/bin/python3.11");
  assert.equal(probeText(found), "Python 3.11.2 at /opt/My Pythons/bin/python3.11");
  const older = parseProbe("deja-probe 3 12 0 0");
  assert.ok(older !== undefined);
  assert.equal(probeText(older), "Python 3.12.0");
});
