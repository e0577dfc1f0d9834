/* The session view's HTML (src/sessionView/sessionHtml.ts, sessionPage.ts): what a session carries never
 * becomes markup, tool calls are collapsible rows, reasoning is collapsed, compacted turns are
 * marked, the turn opened at is marked, and the document's policy allows no inline or remote code. */

import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionViewRecord, SessionViewResult, SessionViewTurn } from "../../src/shared/protocol";
import { COMPACTED_MARK, escapeHtml, shownPath, turnHtml, turnsHtml } from "../../src/sessionView/sessionHtml";
import { headerHtml, sessionDocumentHtml, turnAt } from "../../src/sessionView/sessionPage";

// A tag with an `on…=` attribute (attribute values are quoted and escaped: `"` never inside).
const ATTRIBUTE_HANDLER = /<[a-z]+(?:\s+[a-z-]+(?:="[^"]*")?)*\s+on[a-z]+=/i;
const HOSTILE = `<script>alert(1)</script></details></section><img src=x onerror=alert(2)>"'&`;

function record(fields: Partial<SessionViewRecord>): SessionViewRecord {
  const text = fields.text ?? "";
  return { turn: 0, role: "user", time: "2025-06-18T10:00:00Z", text, tool: null, status: null, path: null, exit_code: null, output: null, args: null, hunks: [], compacted: false, text_chars: text.length, output_chars: (fields.output ?? "").length, added: 0, removed: 0, diff_lines: 0, ...fields };
}

function turn(n: number, records: SessionViewRecord[], extra: Partial<SessionViewTurn> = {}): SessionViewTurn {
  return { turn: n, time: "2025-06-18T10:00:00Z", compacted: false, inherited: false, records, ...extra };
}

const SESSION: SessionViewResult["session"] = {
  id: "5c0ffee0-1111-4aaa-8bbb-000000000001",
  title: HOSTILE,
  workspace: "/home/u/<proj>",
  project: "proj",
  started: "2025-06-18T10:00:00Z",
  last_active: "2025-06-18T11:00:00Z",
  first_user: null,
  last_user: null,
  message_count: 4,
  size: 62_914_560,
  lost_context: false,
  kept_turns: 0,
  deleted: false,
  current: false,
};

/** No element of the hostile string survives as markup: only the view's own tags. */
function assertInert(html: string): void {
  assert.doesNotMatch(html, /<script>|<img|<\/details><\/section><img/);
  assert.doesNotMatch(html, ATTRIBUTE_HANDLER);
  assert.ok(html.includes("&lt;script&gt;"), "the text is there, escaped");
}

void test("hostile strings in messages, commands, outputs, paths and diffs stay text", () => {
  const records = [
    record({ text: HOSTILE }),
    record({ role: "assistant", text: `${HOSTILE}\n\n[x](javascript:alert(3)) [y](command:deja.vscode.forkSession)` }),
    record({ role: "command", args: HOSTILE, output: HOSTILE, exit_code: 3 }),
    record({ role: "edit", path: HOSTILE, tool: "Edit", status: "done", hunks: [{ replaced: HOSTILE, written: HOSTILE }], added: 1, removed: 1, diff_lines: 2 }),
    record({ role: "read", path: HOSTILE, status: "done" }),
    record({ role: "reasoning", text: HOSTILE }),
  ];
  const html = turnHtml(turn(0, records), null);
  assertInert(html);
  assert.doesNotMatch(html, /href="(javascript|command):/);
  assert.equal(html.match(/<details/g)?.length, html.match(/<\/details>/g)?.length, "every row closes what it opens");
  assertInert(headerHtml(SESSION));
});

void test("a huge line is escaped whole, and a cut text says how long it was", () => {
  const line = "<b>".repeat(20_000);
  const html = turnHtml(turn(0, [record({ text: line, text_chars: 1_000_000 })]), null);
  assert.ok(html.includes("&lt;b&gt;".repeat(20_000)));
  assert.match(html, /Message cut: 60,000 of 1,000,000 characters shown — Open as Text has it whole\./);
});

void test("tool calls are collapsible rows; reasoning is collapsed; reads are one line", () => {
  const html = turnHtml(
    turn(1, [
      record({ role: "command", args: "pytest -q", output: "1 failed", exit_code: 1, status: "done" }),
      record({ role: "edit", path: "src/a.py", tool: "Edit", status: "done", hunks: [{ replaced: "old\n", written: "new\nnewer\n" }], added: 2, removed: 1, diff_lines: 3 }),
      record({ role: "read", path: "src/b.py", status: "done" }),
      record({ role: "reasoning", text: "thinking **hard**" }),
    ]),
    null,
  );
  assert.match(html, /<details class="tool command failed"><summary><code>\$ pytest -q<\/code><span class="ended"> → exit 1<\/span><\/summary><pre class="output">1 failed<\/pre><\/details>/);
  assert.match(html, /<summary>edited <code title="src\/a.py">src\/a.py<\/code> \(<span class="add">\+2<\/span> <span class="del">−1<\/span>\)/);
  assert.match(html, /<button type="button" data-action="openDiff" data-turn="1" data-index="1">Open diff<\/button>/);
  assert.match(html, /<span class="del">- old<\/span><span class="add">\+ new<\/span><span class="add">\+ newer<\/span>/);
  assert.match(html, /<div class="tool read">read <code title="src\/b.py">src\/b.py<\/code>/);
  assert.match(html, /<details class="reasoning"><summary>Reasoning<\/summary><div class="markdown"><p>thinking <strong>hard<\/strong><\/p>/);
  assert.doesNotMatch(html, /<details[^>]* open/, "nothing starts expanded");
});

void test("messages are Markdown with highlighted code", () => {
  const html = turnHtml(turn(0, [record({ role: "assistant", text: "Run:\n\n```python\ndef f():\n    return 'x'\n```\n" })]), null);
  assert.match(html, /<pre><code class="language-python"><span class="hljs-keyword">def<\/span> <span class="hljs-title function_">f<\/span>/);
  assert.match(html, /<span class="hljs-string">&#x27;x&#x27;<\/span>|<span class="hljs-string">&#39;x&#39;<\/span>/);
});

void test("compacted turns are marked, the turn opened at is marked, inherited turns fold under the parent", () => {
  const page: SessionViewResult = {
    session: { ...SESSION, forked_from: "aaaaaaaa-0000-4000-8000-000000000001", forked_from_title: "Parent <work>", fork_turn: 2 },
    offset: 0,
    total_turns: 4,
    at_turn: 1,
    turns: [turn(0, [record({ text: "a" })], { inherited: true, compacted: true }), turn(1, [record({ role: "assistant", text: "b" })], { inherited: true }), turn(2, [record({ text: "c" })]), turn(3, [record({ role: "assistant", text: "d" })])],
  };
  const html = turnsHtml(page, 1);
  assert.ok(html.includes(COMPACTED_MARK));
  assert.match(html, /<details class="inherited" open><summary>from Parent &lt;work&gt; <span class="count">\(2 inherited turns\)<\/span><\/summary>/);
  assert.match(html, /<section class="turn role-assistant marked" id="turn-1" data-turn="1" tabindex="-1" aria-current="true">/);
  assert.ok(html.indexOf('id="turn-2"') > html.indexOf("</details>"), "own turns come after the fold");
  assert.equal(html.match(/aria-current/g)?.length, 1);
});

void test("the document allows scripts only by nonce and loads nothing remote", () => {
  const page: SessionViewResult = { session: SESSION, offset: 40, total_turns: 100, at_turn: null, turns: [turn(40, [record({ text: "x" })])] };
  const html = sessionDocumentHtml(page, { nonce: "N0nce", cspSource: "https://file+.vscode-resource.test", styleUri: "https://file+.vscode-resource.test/s.css", scriptUri: "https://file+.vscode-resource.test/v.js" });
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-N0nce'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.doesNotMatch(html, ATTRIBUTE_HANDLER, "no inline handlers");
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.match(html, /<script nonce="N0nce" src=/);
  assert.match(html, /data-first="40" data-end="41" data-total="100"/);
  assert.match(html, /Show 40 earlier turns/);
  assert.match(html, /Load 59 more turns/);
  for (const label of ["Reopen in Continue", "Fork Session Here", "Restore into Continue", "Copy Id", "Open as Text"]) {
    assert.match(html, new RegExp(`<button type="button" data-action="\\w+">${label}</button>`));
  }
  assert.match(html, /60 MB <span class="sep">·<\/span> 4 messages/);
  assert.equal(escapeHtml(`<"&'>`), "&lt;&quot;&amp;&#39;&gt;");
});

void test("the turn a line of the session document is in", () => {
  const lines = ["# Title", "", "## Turn 0 · 2025-06-18T10:00:00Z", "text", "## Turn 12 · 2025-06-18T10:00:01Z · compacted", "", "more"];
  assert.equal(turnAt(lines, 1), undefined);
  assert.equal(turnAt(lines, 3), 0);
  assert.equal(turnAt(lines, 6), 12);
  assert.equal(turnAt(lines, 99), 12);
});

void test("paths inside the session's workspace are shown relative to it", () => {
  assert.equal(shownPath("/w/shop/src/a.py", "/w/shop"), '<code title="/w/shop/src/a.py">src/a.py</code>');
  assert.equal(shownPath("/w/shop/src/a.py", "/w/shop/"), '<code title="/w/shop/src/a.py">src/a.py</code>');
  assert.equal(shownPath("c:\\w\\shop\\a.py", "c:\\w\\shop"), '<code title="c:\\w\\shop\\a.py">a.py</code>');
  assert.equal(shownPath("/w/shopping/a.py", "/w/shop"), '<code title="/w/shopping/a.py">/w/shopping/a.py</code>');
  assert.equal(shownPath(null, "/w"), '<code title="?">?</code>');
});
