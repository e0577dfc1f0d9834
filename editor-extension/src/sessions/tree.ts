/** The Deja History view: this workspace's sessions, newest first, expanding to their turns. */

import * as vscode from "vscode";
import { sessionDescription, sessionTooltip, titleOf, turnDescription, turnLabel } from "../shared/format";
import { Commands, Methods, type SessionResult, type SessionsResult, type SessionSummary, type SessionTurn } from "../shared/protocol";
import { keptByDejaLabel, lostDescription, type LostSession, type LostSessionsResult } from "../share/shareResults";
import { errorText, type Sidecar } from "../server/sidecar";

export const VIEW_IN_CONTINUE = "deja.history";
export const VIEW_IN_EXPLORER = "deja.historyExplorer";
const LIMIT = 200;

export type HistoryNode =
  | { kind: "session"; session: SessionSummary }
  | { kind: "turn"; sessionId: string; title: string; turn: SessionTurn }
  | { kind: "message"; text: string }
  | { kind: "kept"; sessions: LostSession[] };

export class HistoryTree implements vscode.TreeDataProvider<HistoryNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<HistoryNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly views: vscode.TreeView<HistoryNode>[];
  private readonly subscriptions: vscode.Disposable[] = [];
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly sidecar: Sidecar) {
    this.views = [VIEW_IN_CONTINUE, VIEW_IN_EXPLORER].map((id) =>
      vscode.window.createTreeView(id, { treeDataProvider: this, showCollapseAll: true }),
    );
    this.subscriptions.push(
      ...this.views,
      sidecar.onIndexChanged(() => this.refreshSoon()),
      sidecar.onDidChangeState((state) => {
        if (state !== "starting") {
          this.refresh();
        }
      }),
      sidecar.onIndexing((event) => {
        if (event.kind === "end") {
          this.refresh();
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refreshSoon()),
    );
  }

  refresh(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
      this.refreshTimer = undefined;
    }
    this.changeEmitter.fire(undefined);
  }

  private refreshSoon(): void {
    if (this.refreshTimer === undefined) {
      this.refreshTimer = setTimeout(() => this.refresh(), 300);
    }
  }

  private setMessage(message: string | undefined): void {
    for (const view of this.views) {
      view.message = message;
    }
  }

  getTreeItem(node: HistoryNode): vscode.TreeItem {
    if (node.kind === "message") {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon("info");
      return item;
    }
    if (node.kind === "kept") {
      // What Continue lost and only Deja still holds: each can be recovered into Continue.
      const item = new vscode.TreeItem(keptByDejaLabel(node.sessions.length), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = "kept-by-deja";
      item.contextValue = "keptByDeja";
      item.iconPath = new vscode.ThemeIcon("archive");
      item.tooltip = "Sessions whose file Continue deleted or compacted: Recover into Continue gives them back.";
      return item;
    }
    if (node.kind === "session") {
      const session = node.session;
      const item = new vscode.TreeItem(titleOf(session.title), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `session:${session.id}`;
      item.description = sessionDescription(session);
      item.tooltip = sessionTooltip(session);
      item.contextValue = session.deleted || session.kept_turns > 0 ? "session.lost" : session.lost_context ? "session.compacted" : "session";
      if ("lost" in session) {
        item.id = `kept:${session.id}`;
        item.description = lostDescription(session as LostSession);
      }
      item.iconPath = new vscode.ThemeIcon(session.deleted ? "trash" : session.lost_context ? "fold" : "comment-discussion");
      item.accessibilityInformation = { label: `${titleOf(session.title)}, ${item.description}` };
      return item;
    }
    const item = new vscode.TreeItem(turnLabel(node.turn), vscode.TreeItemCollapsibleState.None);
    item.id = `turn:${node.sessionId}:${node.turn.turn}`;
    item.description = turnDescription(node.turn);
    item.contextValue = node.turn.compacted ? "turn.compacted" : "turn";
    item.iconPath = new vscode.ThemeIcon(node.turn.compacted ? "fold" : "debug-stackframe-dot");
    item.tooltip = node.turn.compacted ? "Continue's compaction removed this turn from disk: only Deja still has it." : undefined;
    item.command = { title: "Open Session", command: Commands.openSession, arguments: [node.sessionId, node.turn.turn] };
    return item;
  }

  async getChildren(node?: HistoryNode): Promise<HistoryNode[]> {
    if (node === undefined) {
      return this.roots();
    }
    if (node.kind === "kept") {
      return node.sessions.map((session) => ({ kind: "session", session }));
    }
    if (node.kind !== "session") {
      return [];
    }
    try {
      const result = await this.sidecar.request<SessionResult>(Methods.session, { sessionId: node.session.id });
      return result.turns.map((turn) => ({ kind: "turn", sessionId: node.session.id, title: node.session.title, turn }));
    } catch (error) {
      return [{ kind: "message", text: errorText(error) }];
    }
  }

  private async roots(): Promise<HistoryNode[]> {
    if (this.sidecar.state === "failed" || this.sidecar.state === "stopped") {
      this.setMessage(this.sidecar.failure ?? "Deja's server is not running: run “Deja: Restart Server”.");
      return [];
    }
    try {
      const result = await this.sidecar.request<SessionsResult>(Methods.sessions, { scope: "workspace", limit: LIMIT });
      const notes = [...result.notes];
      if (result.sessions.length === 0) {
        notes.push("No Continue session yet (or still indexing).");
      }
      this.setMessage(notes.length > 0 ? notes.join(" ") : undefined);
      const sessions: HistoryNode[] = result.sessions.map((session) => ({ kind: "session", session }));
      const kept = await this.keptByDeja();
      return kept.length > 0 ? [{ kind: "kept", sessions: kept }, ...sessions] : sessions;
    } catch (error) {
      this.setMessage(errorText(error));
      return [];
    }
  }

  /** The "Kept by Deja" group's sessions; an older sidecar without the request: none. */
  private async keptByDeja(): Promise<LostSession[]> {
    try {
      return (await this.sidecar.request<LostSessionsResult>(Methods.lostSessions, { scope: "workspace" })).sessions;
    } catch (error) {
      this.sidecar.warn(`Kept by Deja: ${errorText(error)}`);
      return [];
    }
  }

  dispose(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.changeEmitter.dispose();
  }
}
