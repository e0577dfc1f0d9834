/** Deja: Search History — a QuickPick that asks the sidecar as you type. */

import * as vscode from "vscode";
import { hitItem } from "../shared/format";
import { LatestOnly } from "./latest";
import { Commands, Methods, type Scope, type SearchHit, type SearchResult } from "../shared/protocol";
import { affectsScope, defaultScope } from "../server/settings";
import { errorText, type Sidecar } from "../server/sidecar";

const DEBOUNCE_MS = 150;
const LIMIT = 50;
const CONTEXT_KEY = "deja.searchVisible";

interface HitPick extends vscode.QuickPickItem {
  hit?: SearchHit;
}

const forkButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("repo-forked"), tooltip: "Fork Session Here" };
const reopenButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("comment-discussion"), tooltip: "Reopen in Continue" };

function scopeButton(scope: Scope): vscode.QuickInputButton {
  return scope === "workspace"
    ? { iconPath: new vscode.ThemeIcon("folder"), tooltip: "Searching this workspace: search all workspaces (Alt+S)" }
    : { iconPath: new vscode.ThemeIcon("globe"), tooltip: "Searching all workspaces: search this workspace only (Alt+S)" };
}

function scopeTitle(scope: Scope): string {
  return `Deja: Search History — ${scope === "workspace" ? "this workspace" : "all workspaces"}`;
}

export class SearchHistory implements vscode.Disposable {
  private scope: Scope | undefined;
  private toggle: (() => void) | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sidecar: Sidecar) {
    this.subscriptions = [
      // A new default scope (setting) applies to the next search.
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsScope(event)) {
          this.scope = undefined;
        }
      }),
    ];
  }

  /** Alt+S while the search is open: the other scope, asked again. */
  toggleScope(): void {
    this.toggle?.();
  }

  show(initial?: string): void {
    let scope = this.scope ?? defaultScope();
    const pick = vscode.window.createQuickPick<HitPick>();
    pick.title = scopeTitle(scope);
    pick.placeholder = 'Search Continue sessions: words, "a phrase", prefix*, -exclude';
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    pick.buttons = [scopeButton(scope)];
    let tokens: vscode.CancellationTokenSource | undefined;

    const run = async (query: string, ticket: number): Promise<void> => {
      tokens?.cancel();
      tokens = new vscode.CancellationTokenSource();
      if (query.trim() === "") {
        pick.items = [];
        pick.busy = false;
        return;
      }
      pick.busy = true;
      try {
        const result = await this.sidecar.request<SearchResult>(Methods.search, { query, scope, limit: LIMIT }, tokens.token);
        if (!latest.isCurrent(ticket)) {
          return; // a newer question was asked meanwhile: this answer is stale
        }
        pick.items = items(result);
      } catch (error) {
        if (!latest.isCurrent(ticket)) {
          return;
        }
        pick.items = [{ label: "$(warning) " + errorText(error), alwaysShow: true }];
      } finally {
        if (latest.isCurrent(ticket)) {
          pick.busy = false;
        }
      }
    };
    const latest = new LatestOnly<string>(DEBOUNCE_MS, (query, ticket) => void run(query, ticket));

    this.toggle = () => {
      scope = scope === "workspace" ? "all" : "workspace";
      this.scope = scope;
      pick.title = scopeTitle(scope);
      pick.buttons = [scopeButton(scope)];
      latest.ask(pick.value, true);
    };

    const open = (hit: SearchHit) => {
      pick.hide();
      void vscode.commands.executeCommand(Commands.openSession, hit.session_id, hit.turn);
    };

    pick.onDidChangeValue((value) => latest.ask(value));
    pick.onDidTriggerButton(() => this.toggle?.());
    pick.onDidTriggerItemButton((event) => {
      const hit = event.item.hit;
      if (hit === undefined) {
        return;
      }
      pick.hide();
      const target = { sessionId: hit.session_id, title: hit.title };
      void vscode.commands.executeCommand(event.button === forkButton ? Commands.forkSession : Commands.reopenInContinue, target);
    });
    pick.onDidAccept(() => {
      const hit = pick.selectedItems[0]?.hit ?? pick.activeItems[0]?.hit;
      if (hit !== undefined) {
        open(hit);
      }
    });
    pick.onDidHide(() => {
      latest.cancel();
      tokens?.cancel();
      this.toggle = undefined;
      void vscode.commands.executeCommand("setContext", CONTEXT_KEY, false);
      pick.dispose();
    });
    void vscode.commands.executeCommand("setContext", CONTEXT_KEY, true);
    pick.show();
    if (initial !== undefined && initial !== "") {
      pick.value = initial;
      latest.ask(initial, true);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

/** Notes first (as a separator), then one row per hit. Every row is `alwaysShow`: the sidecar
 * filtered already, the QuickPick must not filter again by label. */
function items(result: SearchResult): HitPick[] {
  const rows: HitPick[] = [];
  const notes = [...result.notes];
  if (notes.length > 0) {
    rows.push({ label: notes.join(" · "), kind: vscode.QuickPickItemKind.Separator });
  }
  if (result.hits.length === 0) {
    rows.push({ label: `$(search-stop) No Continue session matches “${result.query}” in ${result.scope}`, alwaysShow: true });
    return rows;
  }
  for (const hit of result.hits) {
    const item = hitItem(hit);
    rows.push({ ...item, alwaysShow: true, hit, buttons: [reopenButton, forkButton] });
  }
  return rows;
}
