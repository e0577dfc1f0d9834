import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseDoctor, renderDoctor, type DoctorReport } from "../../src/diagnostics/doctor";
import { dejaArgv } from "../../src/server/interpreter";

// Compiled to out/test/unit: the fixtures are three folders up.
const FIXTURE = join(__dirname, "..", "..", "..", "test", "fixtures", "doctor", "problems.json");
const run = { commandLine: "python3 -m deja doctor --json", exitCode: 1, stderr: "" };

void test("the doctor's envelope is read and rendered: problems first, each with its fix", () => {
  const report = parseDoctor(readFileSync(FIXTURE, "utf8"));
  assert.ok(!("problem" in report), "the fixture is the doctor's envelope");
  const text = renderDoctor(report, run);
  assert.match(text, /^# Deja: diagnostics/);
  assert.match(text, /\*\*2 problems found\.\*\*/);
  const problems = text.indexOf("## Problems");
  const fine = text.indexOf("## Fine");
  assert.ok(problems > 0 && fine > problems, "problems come before what is fine");
  assert.ok(text.indexOf("### ✗ sessions") > problems && text.indexOf("### ✗ sessions") < fine);
  assert.match(text, /\*\*Fix:\*\* raise DEJA\\_MAX\\_SESSION\\_BYTES/);
  assert.match(text, /\*\*Fix:\*\* run \\`deja install continue\\`/, "markdown in a fix is shown, not interpreted");
  assert.match(text, /- ✓ \*\*store\*\*: found \/home\/me\/\.continue\/sessions/);
  assert.match(text, /abc\.json: invalid JSON {2}\ndef\.json/, "a detail's lines stay lines");
  assert.match(text, /Ran: `python3 -m deja doctor --json` \(exit code 1\)/);
});

void test("all well says so", () => {
  const report: DoctorReport = { schema: 1, command: "doctor", ok: true, checks: [{ name: "store", ok: true, detail: "found", fix: null }] };
  const text = renderDoctor(report, { ...run, exitCode: 0 });
  assert.match(text, /\*\*All is well\.\*\*/);
  assert.doesNotMatch(text, /## Problems/);
});

void test("what is not the doctor's report is said plainly, with its stderr", () => {
  const notJson = parseDoctor("usage: deja [-h] …\n");
  assert.deepEqual(notJson, { problem: "it did not print JSON" });
  const text = renderDoctor(notJson, { ...run, exitCode: 2, stderr: "deja: error: invalid choice: 'doctor'" });
  assert.match(text, /did not give its report: it did not print JSON \(exit code 2\)/);
  assert.match(text, /invalid choice: 'doctor'/);
  assert.deepEqual(parseDoctor('{"schema": 1, "command": "doctor", "error": {"message": "no store"}}'), { problem: "no store" });
  assert.deepEqual(parseDoctor('{"schema": 1, "command": "doctor", "ok": true, "checks": [{"name": 1}]}'), { problem: "its JSON is not the doctor's envelope" });
});

void test("deja subcommands run as the server runs", () => {
  assert.deepEqual(dejaArgv({ argv: ["py", "-3", "-m", "deja", "serve"], interpreter: ["py", "-3"] }, ["doctor", "--json"]), ["py", "-3", "-m", "deja", "doctor", "--json"]);
  assert.deepEqual(dejaArgv({ argv: ["/opt/deja/bin/deja", "serve"] }, ["install", "continue"]), ["/opt/deja/bin/deja", "install", "continue"]);
  assert.equal(dejaArgv({ argv: ["/opt/wrapper.sh"] }, ["doctor"]), undefined);
});
