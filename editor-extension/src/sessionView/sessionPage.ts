/** The session view's document: a strict content security policy (scripts and styles only by
 * nonce or from the extension, nothing remote), the header with the session's facts and
 * actions, the first page of turns, and where the next pages go. */

import { forkLine, titleOf, when } from "../shared/format";
import type { SessionSummary, SessionViewResult } from "../shared/protocol";
import { notWholeInContinue } from "../share/shareResults";
import { escapeHtml, turnsHtml } from "./sessionHtml";

/** What the header's buttons ask the extension to do (`data-action`). */
export const HEADER_ACTIONS = [
  ["reopen", "Reopen in Continue"],
  ["fork", "Fork Session Here"],
  ["restore", "Restore into Continue"],
  ["copyId", "Copy Id"],
  ["openText", "Open as Text"],
  ["recover", "Recover into Continue"],
  ["export", "Export Session…"],
] as const;

export type HeaderAction = (typeof HEADER_ACTIONS)[number][0];

export function humanSize(bytes: number): string {
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function headerHtml(session: SessionSummary): string {
  const facts = [
    `<span title="workspace">${escapeHtml(session.workspace || "no workspace")}</span>`,
    `started ${escapeHtml(when(session.started))}`,
    `last active ${escapeHtml(when(session.last_active))}`,
    humanSize(session.size),
    `${session.message_count} message${session.message_count === 1 ? "" : "s"}`,
  ];
  const notes: string[] = [];
  const fork = forkLine(session);
  if (fork !== "") {
    notes.push(escapeHtml(fork));
  }
  if (session.deleted) {
    notes.push("Its file was deleted: only Deja still has it.");
  }
  // Recover only what Continue no longer holds whole (its file deleted, or turns compacted away).
  const shown = HEADER_ACTIONS.filter(([action]) => action !== "recover" || notWholeInContinue(session));
  const buttons = shown.map(([action, label]) => `<button type="button" data-action="${action}">${label}</button>`).join("");
  return [
    `<header class="session-head"><h1>${escapeHtml(titleOf(session.title))}</h1>`,
    `<p class="facts">${facts.join(' <span class="sep">·</span> ')}</p>`,
    notes.map((note) => `<p class="note">${note}</p>`).join(""),
    `<p class="id">id <code>${escapeHtml(session.id)}</code></p>`,
    `<nav class="actions" aria-label="Session actions">${buttons}</nav></header>`,
  ].join("");
}

/** The buttons that load the turns before and after the ones shown. */
export function pagerHtml(where: "earlier" | "more", page: Pick<SessionViewResult, "offset" | "total_turns">, shownEnd: number): string {
  if (where === "earlier") {
    return page.offset > 0 ? `<button type="button" class="pager" data-action="earlier">Show ${page.offset} earlier turn${page.offset === 1 ? "" : "s"}</button>` : "";
  }
  const left = page.total_turns - shownEnd;
  return left > 0 ? `<button type="button" class="pager" data-action="more">Load ${left} more turn${left === 1 ? "" : "s"}</button>` : "";
}

export interface DocumentParts {
  nonce: string;
  cspSource: string;
  styleUri: string;
  scriptUri: string;
}

export function sessionDocumentHtml(page: SessionViewResult, parts: DocumentParts): string {
  const end = page.offset + page.turns.length;
  const csp = [
    "default-src 'none'",
    `style-src ${parts.cspSource}`,
    `script-src 'nonce-${parts.nonce}'`,
    `font-src ${parts.cspSource}`,
    "img-src data:",
  ].join("; ");
  const turns = page.turns.length > 0 ? turnsHtml(page, page.at_turn) : '<p class="empty">No turns recorded.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeHtml(parts.styleUri)}">
<title>${escapeHtml(titleOf(page.session.title))}</title></head>
<body data-session="${escapeHtml(page.session.id)}" data-first="${page.offset}" data-end="${end}" data-total="${page.total_turns}" data-at-turn="${page.at_turn ?? ""}">
${headerHtml(page.session)}
<main id="turns" aria-label="Turns"><div id="earlier">${pagerHtml("earlier", page, end)}</div>
${turns}
<div id="more">${pagerHtml("more", page, end)}</div></main>
<script nonce="${parts.nonce}" src="${escapeHtml(parts.scriptUri)}"></script>
</body></html>`;
}

/** The turn a line of the session's Markdown document is in (`## Turn N` above it), if any. */
export function turnAt(lines: readonly string[], line: number): number | undefined {
  for (let index = Math.min(line, lines.length - 1); index >= 0; index--) {
    const match = /^## Turn (\d+)(?: |$)/.exec(lines[index]);
    if (match !== null) {
      return Number(match[1]);
    }
  }
  return undefined;
}
