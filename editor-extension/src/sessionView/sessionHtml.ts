/** The session view's turns as HTML (the webview inserts it as it is). Everything a session
 * holds is untrusted: text outside Markdown is escaped here, Markdown goes through markdown-it
 * with raw HTML off and only http(s)/mailto links, so no string a session carries becomes markup. */

import { renderMarkdown } from "./markdown";
import { when } from "../shared/format";
import type { SessionViewRecord, SessionViewResult, SessionViewTurn } from "../shared/protocol";

export const COMPACTED_MARK = "kept by Deja — no longer in Continue's file";

const WHO: Record<string, string> = {
  user: "User",
  assistant: "Assistant",
  summary: "Summary of earlier turns",
  reasoning: "Assistant",
  command: "Assistant",
  edit: "Assistant",
  read: "Assistant",
  tool: "Assistant",
  attached: "User",
};

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string | null | undefined): string {
  return (text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** How a call ended when it did not simply run (the server's `call_outcome`). */
export function outcome(status: string | null | undefined): string | undefined {
  if (status === "done") {
    return undefined;
  }
  return status === "errored" || status === "canceled" || status === "refused" ? status : "no result";
}

function cutNote(shown: number, full: number, what: string): string {
  return full > shown ? `<p class="cut">${what} cut: ${shown.toLocaleString("en")} of ${full.toLocaleString("en")} characters shown — Open as Text has it whole.</p>` : "";
}

function argsText(args: unknown): string {
  return typeof args === "string" ? args : args === null || args === undefined ? "" : JSON.stringify(args);
}

function ended(item: SessionViewRecord): string {
  if (item.exit_code !== null) {
    return ` → exit ${item.exit_code}`;
  }
  const word = outcome(item.status);
  return word === undefined ? "" : ` → ${word}`;
}

function failed(item: SessionViewRecord): boolean {
  return (item.exit_code !== null && item.exit_code !== 0) || item.status === "errored";
}

function linesOf(text: string | null | undefined): string[] {
  const lines = (text ?? "").split("\n");
  return lines[lines.length - 1] === "" ? lines.slice(0, -1) : lines;
}

/** `- old` / `+ new` lines, each a span the theme colours. */
export function diffHtml(item: SessionViewRecord): string {
  const lines: string[] = [];
  for (const hunk of item.hunks ?? []) {
    lines.push(...linesOf(hunk.replaced).map((line) => `<span class="del">- ${escapeHtml(line)}</span>`));
    lines.push(...linesOf(hunk.written).map((line) => `<span class="add">+ ${escapeHtml(line)}</span>`));
  }
  const shown = lines.length;
  if (item.diff_lines > shown) {
    lines.push(`<span class="more">… ${item.diff_lines - shown} more lines (Open diff shows what the page holds)</span>`);
  }
  // Each line is a block of its own (its background spans the row): no newline between them.
  return `<pre class="diff">${lines.join("")}</pre>`;
}

/** A path as the row shows it: relative to the session's workspace when inside it. */
export function shownPath(path: string | null, workspace: string): string {
  const full = path ?? "?";
  const base = workspace.replace(/[\\/]+$/, "");
  const inside = base !== "" && (full.startsWith(`${base}/`) || full.startsWith(`${base}\\`));
  return `<code title="${escapeHtml(full)}">${escapeHtml(inside ? full.slice(base.length + 1) : full)}</code>`;
}

function toolRow(item: SessionViewRecord, index: number, turn: number, workspace: string): string {
  const status = failed(item) ? " failed" : "";
  if (item.role === "command") {
    const output = item.output ? `<pre class="output">${escapeHtml(item.output)}</pre>${cutNote(item.output.length, item.output_chars, "Output")}` : `<p class="empty">No output.</p>`;
    return `<details class="tool command${status}"><summary><code>$ ${escapeHtml(argsText(item.args))}</code><span class="ended">${escapeHtml(ended(item))}</span></summary>${output}</details>`;
  }
  if (item.role === "edit") {
    const wrote = (item.hunks ?? []).length > 0 && (item.hunks ?? []).every((hunk) => hunk.replaced === null);
    const verb = outcome(item.status) === undefined ? (wrote ? "wrote" : "edited") : wrote ? "write" : "edit";
    const counts = `(<span class="add">+${item.added}</span> <span class="del">−${item.removed}</span>)`;
    const action = (item.hunks ?? []).length > 0 ? `<div class="row-actions"><button type="button" data-action="openDiff" data-turn="${turn}" data-index="${index}">Open diff</button></div>` : "";
    return `<details class="tool edit${status}"><summary>${verb} ${shownPath(item.path, workspace)} ${counts}<span class="ended">${escapeHtml(ended(item))}</span></summary>${action}${diffHtml(item)}</details>`;
  }
  if (item.role === "read" || item.role === "attached") {
    const verb = item.role === "read" ? "read" : "attached";
    return `<div class="tool read${status}">${verb} ${shownPath(item.path, workspace)}<span class="ended">${escapeHtml(ended(item))}</span></div>`;
  }
  const args = item.args ? `<pre class="output">${escapeHtml(argsText(item.args))}</pre>` : "";
  const output = item.output ? `<pre class="output">${escapeHtml(item.output)}</pre>${cutNote(item.output.length, item.output_chars, "Output")}` : "";
  return `<details class="tool other${status}"><summary>tool <code>${escapeHtml(item.tool ?? "?")}</code><span class="ended">${escapeHtml(ended(item))}</span></summary>${args}${output}</details>`;
}

export function recordHtml(item: SessionViewRecord, index: number, turn: number, workspace = ""): string {
  const text = item.text ?? "";
  if (item.role === "reasoning") {
    return `<details class="reasoning"><summary>Reasoning</summary><div class="markdown">${renderMarkdown(text)}</div>${cutNote(text.length, item.text_chars, "Reasoning")}</details>`;
  }
  if (item.role === "user" || item.role === "assistant" || item.role === "summary") {
    return `<div class="message markdown">${renderMarkdown(text)}</div>${cutNote(text.length, item.text_chars, "Message")}`;
  }
  return toolRow(item, index, turn, workspace);
}

export function turnHtml(turn: SessionViewTurn, markedTurn: number | null, workspace = ""): string {
  const role = turn.records[0]?.role ?? "assistant";
  const who = WHO[role] ?? role;
  const classes = ["turn", `role-${role in WHO ? role : "other"}`, turn.compacted ? "compacted" : "", turn.turn === markedTurn ? "marked" : ""].filter((c) => c !== "");
  const mark = turn.compacted ? ` <span class="badge compacted-mark">${COMPACTED_MARK}</span>` : "";
  const current = turn.turn === markedTurn ? ' aria-current="true"' : "";
  const head = `<header class="turn-head"><span class="who">${escapeHtml(who)}</span> <time datetime="${escapeHtml(turn.time)}">${escapeHtml(when(turn.time))}</time> <span class="turn-no">turn ${turn.turn}</span>${mark}</header>`;
  const body = turn.records.map((item, index) => recordHtml(item, index, turn.turn, workspace)).join("");
  return `<section class="${classes.join(" ")}" id="turn-${turn.turn}" data-turn="${turn.turn}" tabindex="-1"${current}>${head}${body}</section>`;
}

/** A page's turns in order; a fork's inherited turns folded under "from <parent>". */
export function turnsHtml(page: SessionViewResult, markedTurn: number | null): string {
  const parts: string[] = [];
  let inherited: string[] = [];
  const parent = escapeHtml(page.session.forked_from_title || page.session.forked_from?.slice(0, 8) || "the parent session");
  const flush = () => {
    if (inherited.length > 0) {
      const open = inherited.some((html) => html.includes('aria-current="true"')) ? " open" : "";
      parts.push(`<details class="inherited"${open}><summary>from ${parent} <span class="count">(${inherited.length} inherited turn${inherited.length === 1 ? "" : "s"})</span></summary>${inherited.join("")}</details>`);
      inherited = [];
    }
  };
  for (const turn of page.turns) {
    if (turn.inherited) {
      inherited.push(turnHtml(turn, markedTurn, page.session.workspace));
    } else {
      flush();
      parts.push(turnHtml(turn, markedTurn, page.session.workspace));
    }
  }
  flush();
  return parts.join("\n");
}
