/** The Deja Search view's inputs: a webview view (theme colours, the workbench font, a strict
 * content security policy with a nonce, plain form controls so the keyboard reaches each) that
 * posts the filters to the extension; the results are the TreeView below it. */

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { filtersOf, ROLES, type SearchFilters } from "./searchView";
import type { TeamStatus } from "../shared/protocol";

export const INPUT_VIEW = "deja.searchInput";

export interface InputState {
  filters: SearchFilters;
  team: TeamStatus | undefined;
  counts: string;
}

export class SearchInputView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly state: () => InputState,
    private readonly onSearch: (filters: SearchFilters) => void,
  ) {
    this.subscriptions.push(vscode.window.registerWebviewViewProvider(INPUT_VIEW, this));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    view.webview.html = page(randomBytes(16).toString("base64"), view.webview.cspSource);
    const listening = view.webview.onDidReceiveMessage((message: unknown) => {
      const record = message as { type?: unknown; filters?: unknown };
      if (record?.type === "ready") {
        this.post(true); // a view shown again gets what it held: the results stay too
      } else if (record?.type === "search") {
        const filters = filtersOf(record.filters);
        if (filters !== undefined) {
          this.onSearch(filters);
        }
      }
    });
    view.onDidDispose(() => {
      this.view = undefined;
      listening.dispose();
    });
  }

  /** The state into the form; `fill` also replaces what the inputs hold (a query from outside). */
  post(fill: boolean): void {
    void this.view?.webview.postMessage({ type: "state", fill, ...this.state() });
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

function page(nonce: string, cspSource: string): string {
  const roles = ROLES.map((role) => `<option value="${role}">${role}</option>`).join("");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 4px 8px 6px; }
input, select { font: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 4px; box-sizing: border-box; width: 100%; }
input:focus, select:focus, button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
label { display: block; color: var(--vscode-descriptionForeground); margin-top: 6px; }
.row { display: flex; gap: 6px; } .row > * { flex: 1; }
.modes { display: flex; gap: 4px; margin-top: 6px; }
button { font: inherit; flex: 1; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: none; padding: 3px; cursor: pointer; }
button[aria-pressed="true"] { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
#counts, #team-reason { color: var(--vscode-descriptionForeground); margin-top: 6px; }
</style></head><body>
<input id="query" type="search" aria-label="Search Continue sessions" placeholder='Search: words, "a phrase", prefix*, -exclude'>
<div class="row">
<label>Role<select id="role"><option value="">any</option>${roles}</select></label>
<label>Since<input id="since" placeholder="7d, 12h, 2026-11-01"></label>
</div>
<div class="row">
<label>File<input id="file" placeholder="a path or its end"></label>
<label>Scope<select id="scope"><option value="workspace">This workspace</option><option value="all">All workspaces</option><option value="team">Team</option></select></label>
</div>
<div id="team-reason" hidden></div>
<div class="modes" role="group" aria-label="Show">
<button id="mode-hits" type="button" aria-pressed="true">Hits</button>
<button id="mode-files" type="button" aria-pressed="false">Files</button>
</div>
<div id="counts" role="status" aria-live="polite"></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const el = (id) => document.getElementById(id);
let mode = "hits";
let timer;
function filters() {
  return { query: el("query").value, role: el("role").value, since: el("since").value, file: el("file").value, scope: el("scope").value, mode };
}
function send(now) {
  clearTimeout(timer);
  timer = setTimeout(() => vscode.postMessage({ type: "search", filters: filters() }), now ? 0 : 250);
}
function setMode(next) {
  mode = next;
  el("mode-hits").setAttribute("aria-pressed", String(mode === "hits"));
  el("mode-files").setAttribute("aria-pressed", String(mode === "files"));
}
for (const id of ["query", "since", "file"]) {
  el(id).addEventListener("input", () => send(false));
  el(id).addEventListener("keydown", (event) => { if (event.key === "Enter") send(true); });
}
for (const id of ["role", "scope"]) el(id).addEventListener("change", () => send(true));
el("mode-hits").addEventListener("click", () => { setMode("hits"); send(true); });
el("mode-files").addEventListener("click", () => { setMode("files"); send(true); });
window.addEventListener("message", (event) => {
  const state = event.data;
  if (state.type !== "state") return;
  if (state.fill) {
    el("query").value = state.filters.query; el("role").value = state.filters.role;
    el("since").value = state.filters.since; el("file").value = state.filters.file;
    el("scope").value = state.filters.scope; setMode(state.filters.mode);
    el("query").focus();
  }
  const team = el("scope").querySelector('option[value="team"]');
  const usable = state.team !== undefined && state.team.configured;
  team.disabled = !usable;
  team.textContent = usable ? "Team" + (state.team.name ? " (as " + state.team.name + ")" : "") : "Team (not set up)";
  el("team-reason").hidden = usable || state.team === undefined;
  el("team-reason").textContent = usable || state.team === undefined ? "" : "Team: " + state.team.reason;
  el("file").disabled = el("scope").value === "team";
  el("counts").textContent = state.counts;
});
vscode.postMessage({ type: "ready" });
</script></body></html>`;
}
