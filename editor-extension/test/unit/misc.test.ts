import assert from "node:assert/strict";
import { test } from "node:test";
import { CN_INSTALL, forkPlan } from "../../src/actions/fork";
import { LatestOnly, type Timers } from "../../src/search/latest";
import { Commands, ServerCommands } from "../../src/shared/protocol";
import { rewriteHoverLinks, rewriteLensCommand, TRUSTED_COMMANDS } from "../../src/server/rewrite";
import { isSessionId, markdownTitle, sessionDocument, sessionIdOf, slug, turnLine } from "../../src/sessions/sessionUri";
import { findOnPath } from "../../src/actions/which";

const ID = "e5a07c33-1f6b-4d28-b9e4-6c2a8d0f1e03";

void test("the extension's command ids never collide with the server's", () => {
  const server = new Set<string>(Object.values(ServerCommands));
  for (const id of Object.values(Commands)) {
    assert.ok(id.startsWith("deja.vscode."), id);
    assert.ok(!server.has(id), id);
  }
});

void test("hover links go to the extension's commands, arguments unchanged", () => {
  const args = encodeURIComponent(JSON.stringify([ID, 2]));
  const markdown = `[Open session](command:deja.showSession?${args}) · [Fork it here](command:deja.forkSession?${encodeURIComponent(JSON.stringify([ID]))}) · [File history](command:deja.showFileHistory?x) · [Other](command:deja.other?y)`;
  const rewritten = rewriteHoverLinks(markdown);
  assert.match(rewritten, new RegExp(`\\(command:deja\\.vscode\\.openSession\\?${args.replace(/[%]/g, "%")}\\)`));
  assert.match(rewritten, /\(command:deja\.vscode\.forkSession\?/);
  assert.match(rewritten, /\(command:deja\.vscode\.showPastEdits\?x\)/);
  assert.match(rewritten, /\(command:deja\.other\?y\)/);
  for (const command of ["deja.showSession", "deja.forkSession", "deja.showFileHistory", "deja.vscode.openSession", "deja.vscode.forkSession", "deja.vscode.showPastEdits"]) {
    assert.ok(TRUSTED_COMMANDS.includes(command), command);
  }
});

void test("code lens commands are rewritten the same way", () => {
  assert.deepEqual(rewriteLensCommand({ title: "t", command: "deja.showFileHistory", arguments: ["file:///a"] }), { title: "t", command: "deja.vscode.showPastEdits", arguments: ["file:///a"] });
  assert.deepEqual(rewriteLensCommand({ title: "t", command: "deja.showSession", arguments: [ID, 2] }).command, "deja.vscode.openSession");
  assert.deepEqual(rewriteLensCommand({ title: "t", command: "other" }).command, "other");
});

void test("session documents: a readable name, the id in the query", () => {
  const { path, query } = sessionDocument(ID, "Fix: a/b <flaky> test?");
  assert.equal(path, "/Fix a b flaky test · e5a07c33.md");
  assert.equal(sessionIdOf(query), ID);
  assert.equal(sessionIdOf("id=..%2F..%2Fetc"), undefined);
  assert.equal(sessionIdOf("turn=2"), undefined);
  assert.equal(slug(""), "Untitled session");
  assert.equal(slug("x".repeat(100)).length, 60);
  assert.ok(isSessionId(ID));
  assert.ok(!isSessionId("file:///x"));
  assert.ok(!isSessionId(""));
});

void test("the turn's heading line in the server's markdown", () => {
  const markdown = "# Title\n\nmeta\n\n## Turn 0 · 2026-11-13T09:30:00Z\n\nhi\n\n## Turn 1 · 2026-11-13T09:30:01Z · compacted: no longer on disk\n\n## Turn 10 · x\n";
  assert.equal(turnLine(markdown, 0), 4);
  assert.equal(turnLine(markdown, 1), 8);
  assert.equal(turnLine(markdown, 10), 10);
  assert.equal(turnLine(markdown, 7), 0);
  assert.equal(turnLine(markdown, undefined), 0);
  assert.equal(markdownTitle(markdown), "Title");
});

void test("finding cn on PATH", () => {
  const present = new Set(["/usr/local/bin/cn", "C:\\npm\\cn.cmd"]);
  const isExecutable = (path: string) => present.has(path);
  assert.equal(findOnPath("cn", "/usr/bin:/usr/local/bin", isExecutable, "linux"), "/usr/local/bin/cn");
  assert.equal(findOnPath("cn", "/usr/bin::/bin", isExecutable, "linux"), undefined);
  assert.equal(findOnPath("cn", undefined, isExecutable, "linux"), undefined);
  assert.equal(findOnPath("cn", "C:\\Windows;C:\\npm", isExecutable, "win32"), "C:\\npm\\cn.cmd");
  assert.equal(findOnPath("/usr/local/bin/cn", "", isExecutable, "linux"), "/usr/local/bin/cn");
});

void test("fork: the session's folder, else the current one, saying so", () => {
  const fork = { command: "cn", args: ["--fork", ID], cwd: "/home/u/api", note: "n" };
  const plan = forkPlan(fork, "Make parse_config close its file", "/work/here", "linux");
  assert.equal(plan.cwd, "/home/u/api");
  assert.equal(plan.cwdNote, undefined);
  assert.equal(plan.line, `cn --fork ${ID}`);
  assert.equal(plan.terminalName, "Fork: Make parse_config close its file");
  assert.match(plan.message, /starts a new Continue session/);
  const elsewhere = forkPlan({ ...fork, cwd: null }, "T", "/work/here", "linux");
  assert.equal(elsewhere.cwd, "/work/here");
  assert.match(elsewhere.message, /not on this machine: the fork runs in the current folder, \/work\/here/);
  assert.equal(forkPlan({ ...fork, cwd: null }, "T", undefined, "linux").cwd, undefined);
  assert.match(forkPlan(fork, "x".repeat(80), undefined, "linux").terminalName, /^Fork: x{39}…$/);
  assert.equal(CN_INSTALL, "npm i -g @continuedev/cli");
});

/** Timers run by hand. */
class ManualTimers implements Timers {
  private next = 1;
  readonly pending = new Map<number, () => void>();
  set(callback: () => void): unknown {
    const handle = this.next++;
    this.pending.set(handle, callback);
    return handle;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  flush(): void {
    const callbacks = [...this.pending.values()];
    this.pending.clear();
    for (const callback of callbacks) {
      callback();
    }
  }
}

void test("search as you type: debounced, and stale answers are recognised", () => {
  const timers = new ManualTimers();
  const asked: [string, number][] = [];
  const latest = new LatestOnly<string>(150, (value, ticket) => asked.push([value, ticket]), timers);
  latest.ask("p");
  latest.ask("pa");
  latest.ask("par");
  assert.equal(timers.pending.size, 1, "only the last keystroke waits");
  timers.flush();
  assert.deepEqual(asked.map(([value]) => value), ["par"]);
  const first = asked[0][1];
  assert.ok(latest.isCurrent(first));
  latest.ask("pars");
  assert.ok(!latest.isCurrent(first), "an answer to 'par' arriving now is dropped");
  latest.ask("x", true);
  assert.deepEqual(asked.map(([value]) => value), ["par", "x"], "immediately skips the wait");
  assert.equal(timers.pending.size, 0);
  const last = asked[1][1];
  latest.cancel();
  assert.ok(!latest.isCurrent(last), "after hiding, nothing is current");
});
