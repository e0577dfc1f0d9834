import assert from "node:assert/strict";
import { test } from "node:test";
import { commandLine, diagnose, powershellQuote, resolveLaunch, serverMismatch, serverOptions, settingProblems, shellQuote, startingLine } from "../../src/server/launch";

void test("deja.server.command wins over everything", () => {
  const launch = resolveLaunch({ command: ["/opt/deja/bin/deja", "serve"], python: "/usr/bin/python3.12" }, ["/venv/bin/python"]);
  assert.deepEqual(launch, { argv: ["/opt/deja/bin/deja", "serve"], source: "deja.server.command" });
});

void test("deja.server.python runs -m deja serve", () => {
  const launch = resolveLaunch({ command: [], python: " /home/u/deja/.venv/bin/python " }, ["/other/python"]);
  assert.deepEqual(launch.argv, ["/home/u/deja/.venv/bin/python", "-m", "deja", "serve"]);
  assert.equal(launch.source, "deja.server.python");
});

void test("then the Python extension's interpreter, then python3 on PATH", () => {
  assert.deepEqual(resolveLaunch({}, ["/venv/bin/python"]).argv, ["/venv/bin/python", "-m", "deja", "serve"]);
  assert.equal(resolveLaunch({}, ["/venv/bin/python"]).source, "Python extension");
  assert.deepEqual(resolveLaunch({}, ["conda", "run", "-n", "x", "python"]).argv, ["conda", "run", "-n", "x", "python", "-m", "deja", "serve"]);
  assert.deepEqual(resolveLaunch({}).argv, ["python3", "-m", "deja", "serve"]);
  assert.equal(resolveLaunch({}, []).source, "PATH");
});

void test("wrong setting types are ignored and reported", () => {
  assert.equal(resolveLaunch({ command: "deja serve", python: 3 }).source, "PATH");
  assert.equal(resolveLaunch({ command: ["", "serve"] }).source, "PATH");
  assert.equal(settingProblems({ command: "deja serve" }).length, 1);
  assert.equal(settingProblems({ python: 3 }).length, 1);
  assert.equal(settingProblems({ command: [], python: "" }).length, 0);
});

void test("command lines are shell-quoted exactly", () => {
  assert.equal(shellQuote("/usr/bin/python3"), "/usr/bin/python3");
  assert.equal(shellQuote("my dir/python"), "'my dir/python'");
  assert.equal(shellQuote("it's"), `'it'"'"'s'`);
  assert.equal(shellQuote(""), "''");
  assert.equal(commandLine(["/a b/python", "-m", "deja", "serve"]), "'/a b/python' -m deja serve");
  assert.equal(powershellQuote("C:\\Program Files\\x"), "'C:\\Program Files\\x'");
  assert.equal(powershellQuote("it's"), "'it''s'");
});

void test("a missing program names the setting to fix", () => {
  const message = diagnose(resolveLaunch({}), { spawnError: "ENOENT", stderr: "" });
  assert.match(message, /`python3` \(from PATH\) was not found/);
  assert.match(message, /deja\.server\.python/);
});

void test("a Python without Deja says how to install it", () => {
  const launch = resolveLaunch({ python: "/usr/bin/python3" });
  const message = diagnose(launch, { exitCode: 1, stderr: "/usr/bin/python3: No module named deja\n" });
  assert.match(message, /does not have Deja installed/);
  assert.match(message, /\/usr\/bin\/python3 -m pip install -e/);
  assert.match(message, /deja\.server\.python/);
});

void test("an old Deja without serve says to update", () => {
  const launch = resolveLaunch({ python: "/p/python" });
  const message = diagnose(launch, { exitCode: 2, stderr: "deja: error: argument COMMAND: invalid choice: 'serve' (choose from 'index')" });
  assert.match(message, /too old or incomplete/);
  const missingPygls = diagnose(launch, { exitCode: 1, stderr: "ModuleNotFoundError: No module named 'pygls'" });
  assert.match(missingPygls, /too old or incomplete/);
});

void test("anything else points to the output", () => {
  const message = diagnose(resolveLaunch({ command: ["deja", "serve"] }), { exitCode: 3, stderr: "boom" });
  assert.match(message, /exit code 3/);
  assert.match(message, /deja\.server\.command/);
  assert.match(message, /Deja output/);
});

void test("only Deja's server is accepted", () => {
  assert.equal(serverMismatch({ name: "deja", version: "0.1.0" }), undefined);
  assert.notEqual(serverMismatch({ name: "pylsp" }), undefined);
  assert.notEqual(serverMismatch(undefined), undefined);
});

void test("the start's log line names the interpreter's absolute path, not just python3", () => {
  const line = startingLine({ argv: ["python3", "-m", "deja", "serve"], source: "PATH", version: "3.11", executable: "/usr/local/bin/python3.11" });
  assert.equal(line, "starting the server (from PATH, Python 3.11 at /usr/local/bin/python3.11): python3 -m deja serve");
  assert.equal(startingLine({ argv: ["/opt/deja/bin/deja", "serve"], source: "deja.server.command" }), "starting the server (from deja.server.command): /opt/deja/bin/deja serve");
});

void test("the extension opts in to Deja's notifications", () => {
  assert.deepEqual(serverOptions(undefined, undefined), { notifications: true });
  assert.deepEqual(serverOptions("all", "/home/u/.continue"), { notifications: true, scope: "all", continueRoot: "/home/u/.continue" });
});
