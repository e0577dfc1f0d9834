/** Sessions for the session view's e2e scenarios, written into the fixture store before
 * code-server starts: one with every kind of row (and hostile text), a parent and its `cn --fork`,
 * one that Continue later compacts, and a generated 60 MB one (never committed). */

import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Fixture } from "./fixture";

export const SESSION_VIEW = "f1a2b3c4-0000-4000-8000-00000000aa01";
export const TITLE_VIEW = "Fix the flaky checkout test";
export const SESSION_PARENT = "f1a2b3c4-0000-4000-8000-00000000aa02";
export const TITLE_PARENT = "Sketch the tax rules";
export const SESSION_FORK = "f1a2b3c4-0000-4000-8000-00000000aa03";
export const TITLE_FORK = "Tax rules, the EU variant";
export const SESSION_COMPACT = "f1a2b3c4-0000-4000-8000-00000000aa04";
export const TITLE_COMPACT = "Speed up the invoice export";
export const SESSION_HUGE = "f1a2b3c4-0000-4000-8000-00000000aa05";
export const TITLE_HUGE = "A very long refactoring day";
export const HOSTILE = "<script>document.title='pwned'</script></details><b>not bold</b>";
export const HUGE_BYTES = 60 * 1024 * 1024;

type Json = Record<string, unknown>;
let calls = 0;

function user(text: string): Json {
  return { message: { role: "user", content: text }, contextItems: [] };
}

function assistant(text: string, extra: Json = {}): Json {
  return { message: { role: "assistant", content: text }, contextItems: [], ...extra };
}

function tool(name: string, args: Json, output: string, status = "done"): Json {
  const id = `view-call-${++calls}`;
  const call = { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
  const result = [{ content: output, name: "Tool Result", description: "Tool execution result" }];
  return {
    message: { role: "assistant", content: "", toolCalls: [call] },
    contextItems: [],
    toolCallStates: [{ toolCallId: id, toolCall: call, status, parsedArgs: args, output: result }],
  };
}

/** The rows the view shows, in order: message with code, hostile text, reasoning, a failed
 * command, an edit, a read. */
function viewHistory(fixture: Fixture): Json[] {
  const pricing = join(fixture.workspace, "src", "pricing.py");
  return [
    user(`the checkout test fails about one run in three; also this came up: ${HOSTILE}`),
    assistant("Let me look at how it is run:\n\n```python\ndef test_checkout():\n    assert total() == 10\n```", {
      reasoning: { text: "The seed is probably not fixed between runs." },
    }),
    tool("Bash", { command: "make test-checkout" }, "Error executing tool Bash: Error (exit code 3)\ncheckout: 1 failed, 4 passed", "errored"),
    tool("Read", { filepath: pricing }, `Content of ${pricing}`),
    tool("Edit", { file_path: pricing, old_string: "TAX_RATE = 0.2\n", new_string: "TAX_RATE = 0.25\n" }, `Successfully edited ${pricing}`),
    assistant("Fixed: the tax rate was read before the seed was set."),
  ];
}

const PARENT_HISTORY = [user("sketch the tax rules for the shop"), assistant("Here is a first sketch of the rules."), user("add reduced rates"), assistant("Added reduced rates.")];
const FORK_OWN = [user("now the EU variant with reverse charge"), assistant("The EU variant applies reverse charge.")];
export const COMPACT_BEFORE = [user("the invoice export takes a minute"), assistant("It loads every invoice twice."), user("load them once"), assistant("Done: loaded once.")];
export const COMPACT_SUMMARY = "Earlier: the export loaded every invoice twice; now once.";
export const COMPACT_AFTER = [assistant(COMPACT_SUMMARY, { conversationSummary: COMPACT_SUMMARY }), user("now stream the CSV"), assistant("The CSV is streamed.")];

/** A `cn` session of about 60 MB: many turns, each a command with a long output. */
function hugeHistory(): Json[] {
  const history: Json[] = [];
  const line = "x".repeat(199) + "\n";
  const output = line.repeat(200); // 40 KB
  let bytes = 0;
  for (let n = 0; bytes < HUGE_BYTES; n++) {
    history.push(user(`step ${n}: run the refactoring script on module ${n}`));
    history.push(tool("Bash", { command: `python refactor.py module_${n}` }, output));
    history.push(assistant(`Module ${n} is refactored.`));
    bytes += output.length + 400;
  }
  return history;
}

function write(fixture: Fixture, id: string, title: string, history: Json[], created: number): void {
  const file = join(fixture.store, "sessions", `${id}.json`);
  writeFileSync(file, JSON.stringify({ sessionId: id, title, workspaceDirectory: fixture.workspace, history }));
  const modified = new Date(created + 60_000);
  utimesSync(file, modified, modified);
  const listPath = join(fixture.store, "sessions", "sessions.json");
  const list = JSON.parse(readFileSync(listPath, "utf8")) as Json[];
  list.push({ sessionId: id, title, dateCreated: String(created), workspaceDirectory: fixture.workspace });
  writeFileSync(listPath, JSON.stringify(list, undefined, 2));
}

export function addViewSessions(fixture: Fixture, now: number = Date.now()): void {
  const hour = 3_600_000;
  write(fixture, SESSION_VIEW, TITLE_VIEW, viewHistory(fixture), now - 5 * hour);
  write(fixture, SESSION_PARENT, TITLE_PARENT, PARENT_HISTORY, now - 4 * hour);
  write(fixture, SESSION_FORK, TITLE_FORK, [...PARENT_HISTORY, ...FORK_OWN], now - 3 * hour);
  write(fixture, SESSION_COMPACT, TITLE_COMPACT, COMPACT_BEFORE, now - 2 * hour);
  write(fixture, SESSION_HUGE, TITLE_HUGE, hugeHistory(), now - 6 * hour);
}

export const LATER_REQUEST = "and gzip the CSV too";

/** What Continue does when it compacts: the file now starts at the summary; `later` adds a turn
 * written after that. */
export function compactSession(fixture: Fixture, later = false): void {
  const file = join(fixture.store, "sessions", `${SESSION_COMPACT}.json`);
  const history = later ? [...COMPACT_AFTER, user(LATER_REQUEST)] : COMPACT_AFTER;
  writeFileSync(file, JSON.stringify({ sessionId: SESSION_COMPACT, title: TITLE_COMPACT, workspaceDirectory: fixture.workspace, history }));
}

export function hugeSize(fixture: Fixture): number {
  return statSync(join(fixture.store, "sessions", `${SESSION_HUGE}.json`)).size;
}
