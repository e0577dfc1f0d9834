/** Deja: Open Session (and Open Session Rendered) — a session in a webview panel (theme colours,
 * the workbench font, a strict content security policy, buttons and <details> for the keyboard),
 * a page of turns at a time from `deja/sessionView`. Chosen over VS Code's Markdown preview of the session
 * document, measured on a 60 MB session: the preview renders the whole 24 MB document before it
 * shows anything (the document alone took 20 s to open; the preview showed nothing in 8 minutes)
 * and has no buttons; the view shows its first turn in about 0.6 s. Every caller that opens a
 * session (search, hover links, the trees, Past Edits) opens this view; the Markdown document
 * stays one action away (Open as Text, `deja.vscode.openSessionAsText`). */

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { PastEdits } from "../pastEdits/pastEdits";
import { titleOf } from "../shared/format";
import { Commands, Methods, type RestoreResult, type SessionViewResult } from "../shared/protocol";
import { copyTextOf } from "../restore/restoreParams";
import type { HeaderAction } from "./sessionPage";
import { SESSION_SCHEME } from "../sessions/sessionUri";
import { pickSession, targetOf } from "../sessions/sessions";
import { errorText, type Sidecar } from "../server/sidecar";

const VIEW_TYPE = "deja.sessionView";
const PAGE = 40;

interface Panel {
  panel: vscode.WebviewPanel;
  session: SessionViewResult["session"];
  /** The records of every turn loaded, for Open diff. */
  turns: Map<number, SessionViewResult["turns"][number]>;
  openedAt: number;
  /** The position after the last turn the view holds. */
  end: number;
  /** The turn it was opened at (marked), where Open as Text opens the document too. */
  atTurn: number | undefined;
}

type FromView =
  | { type: "earlier" | "more"; first: number; end: number }
  | { type: "openDiff"; turn: number; index: number }
  | { type: "action"; action: HeaderAction }
  | { type: "shown"; turn: string | null };

/** The view's HTML makers, loaded on first use: markdown-it and highlight.js are not worth
 * initialising when the extension starts (about 25 ms of CPU). */
type Html = typeof import("./sessionPage") & typeof import("./sessionHtml");
let loaded: Promise<Html> | undefined;
function html(): Promise<Html> {
  loaded ??= Promise.all([import("./sessionPage"), import("./sessionHtml")]).then(([page, turns]) => ({ ...page, ...turns }));
  return loaded;
}

/** From a session document's title bar: the turn its cursor is in. */
function cursorTurn(argument: unknown, turnAt: Html["turnAt"]): number | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!(argument instanceof vscode.Uri) || argument.scheme !== SESSION_SCHEME || editor?.document.uri.toString() !== argument.toString()) {
    return undefined;
  }
  const lines = editor.document.getText().split("\n");
  return turnAt(lines, editor.selection.active.line);
}

export class SessionView implements vscode.Disposable {
  private readonly panels = new Map<string, Panel>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sidecar: Sidecar,
    private readonly pastEdits: PastEdits,
  ) {
    this.subscription = sidecar.onIndexChanged((ids) => {
      for (const id of ids) {
        const entry = this.panels.get(id);
        if (entry !== undefined) {
          void this.grown(entry);
        }
      }
    });
  }

  /** The session changed while open (Continue wrote turns): the pager offers the new ones. */
  private async grown(entry: Panel): Promise<void> {
    const { pagerHtml } = await html();
    try {
      const page = await this.sidecar.request<SessionViewResult>(Methods.sessionView, { sessionId: entry.session.id, offset: 0, limit: 1 });
      const pager = pagerHtml("more", { offset: 0, total_turns: page.total_turns }, entry.end);
      await entry.panel.webview.postMessage({ type: "total", total: page.total_turns, pager });
    } catch (error) {
      this.sidecar.log(`session view: cannot recount ${entry.session.id.slice(0, 8)}: ${errorText(error)}`);
    }
  }

  /** Opens (or brings back) the session's panel, at `turn` when given: that turn is marked. */
  async open(argument?: unknown, turn?: unknown): Promise<void> {
    const openedAt = Date.now();
    const { sessionDocumentHtml, turnAt } = await html();
    const target = targetOf(argument) ?? (await pickSession(this.sidecar, "Which session to open rendered?"));
    if (target === undefined) {
      return;
    }
    const atTurn = typeof turn === "number" && Number.isInteger(turn) && turn >= 0 ? turn : cursorTurn(argument, turnAt);
    let page: SessionViewResult;
    try {
      const params = atTurn === undefined ? { sessionId: target.id, limit: PAGE } : { sessionId: target.id, limit: PAGE, turn: atTurn };
      page = await this.sidecar.request<SessionViewResult>(Methods.sessionView, params);
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot open session ${target.id.slice(0, 8)}: ${errorText(error)}`);
      return;
    }
    const entry = this.panels.get(page.session.id) ?? this.create(page.session);
    entry.openedAt = openedAt;
    entry.session = page.session;
    entry.turns.clear();
    entry.end = page.offset + page.turns.length;
    entry.atTurn = atTurn;
    this.remember(entry, page);
    entry.panel.title = titleOf(page.session.title);
    entry.panel.webview.html = sessionDocumentHtml(page, this.documentParts(entry.panel.webview));
    entry.panel.reveal(undefined, false);
  }

  private create(session: SessionViewResult["session"]): Panel {
    const media = vscode.Uri.joinPath(this.extensionUri, "dist");
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, titleOf(session.title), vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      // Pages loaded and rows opened stay when the tab is hidden (Open diff covers it).
      localResourceRoots: [media, vscode.Uri.joinPath(this.extensionUri, "media", "sessionView")],
      retainContextWhenHidden: true,
    });
    const entry: Panel = { panel, session, turns: new Map(), openedAt: Date.now(), end: 0, atTurn: undefined };
    this.panels.set(session.id, entry);
    panel.onDidDispose(() => this.panels.delete(session.id));
    panel.webview.onDidReceiveMessage((message: FromView) => void this.receive(entry, message));
    return entry;
  }

  private documentParts(webview: vscode.Webview): Parameters<Html["sessionDocumentHtml"]>[1] {
    return {
      nonce: randomBytes(16).toString("base64"),
      cspSource: webview.cspSource,
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "media", "sessionView", "sessionView.css")).toString(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "dist", "sessionView.js")).toString(),
    };
  }

  private remember(entry: Panel, page: SessionViewResult): void {
    for (const turn of page.turns) {
      entry.turns.set(turn.turn, turn);
    }
  }

  private async receive(entry: Panel, message: FromView): Promise<void> {
    const id = entry.session.id;
    switch (message.type) {
      case "shown": {
        const ms = Date.now() - entry.openedAt;
        this.sidecar.log(`session view: ${id.slice(0, 8)} showed turn ${message.turn ?? "none"} ${ms} ms after the command (${entry.session.size} bytes)`);
        await entry.panel.webview.postMessage({ type: "timing", ms });
        return;
      }
      case "earlier":
      case "more":
        await this.page(entry, message.type, message.first, message.end);
        return;
      case "openDiff":
        await this.openDiff(entry, message.turn, message.index);
        return;
      case "action":
        await this.action(id, message.action, entry.atTurn);
        return;
    }
  }

  private async page(entry: Panel, where: "earlier" | "more", first: number, end: number): Promise<void> {
    const { pagerHtml, turnsHtml } = await html();
    const offset = where === "more" ? end : Math.max(0, first - PAGE);
    const limit = where === "more" ? PAGE : first - offset;
    let page: SessionViewResult;
    try {
      page = await this.sidecar.request<SessionViewResult>(Methods.sessionView, { sessionId: entry.session.id, offset, limit: Math.max(limit, 1) });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot load more turns: ${errorText(error)}`);
      return;
    }
    this.remember(entry, page);
    const newEnd = where === "more" ? page.offset + page.turns.length : end;
    entry.end = Math.max(entry.end, newEnd);
    const pager = pagerHtml(where, { offset: page.offset, total_turns: page.total_turns }, newEnd);
    await entry.panel.webview.postMessage({ type: "page", where, html: turnsHtml(page, null), pager, first: page.offset, end: newEnd });
  }

  private async openDiff(entry: Panel, turn: number, index: number): Promise<void> {
    const record = entry.turns.get(turn)?.records[index];
    if (record?.role !== "edit" || record.path === null) {
      return;
    }
    const hunks = (record.hunks ?? []).map((hunk) => ({ ...hunk, range: null }));
    const event = { session_id: entry.session.id, title: entry.session.title, workspace: entry.session.workspace, turn, time: record.time, role: "edit", tool: record.tool, status: record.status, path: record.path, compacted: record.compacted, request: null, hunks, range: null, changed: false };
    await this.pastEdits.diff(event);
  }

  private async action(id: string, action: HeaderAction, atTurn: number | undefined): Promise<void> {
    if (action === "reopen") {
      await vscode.commands.executeCommand(Commands.reopenInContinue, id);
    } else if (action === "fork") {
      await vscode.commands.executeCommand(Commands.forkSession, id);
    } else if (action === "copyId") {
      await vscode.commands.executeCommand(Commands.copySessionId, id);
    } else if (action === "openText") {
      await vscode.commands.executeCommand(Commands.openSessionAsText, id, atTurn);
    } else if (action === "recover") {
      await vscode.commands.executeCommand(Commands.recoverIntoContinue, id);
    } else if (action === "export") {
      await vscode.commands.executeCommand(Commands.exportSession, id);
    } else {
      await this.restore(id);
    }
  }

  /** Restore into Continue: the transcript `deja restore` prints, on the clipboard to paste. */
  private async restore(id: string): Promise<void> {
    try {
      const result = await this.sidecar.request<RestoreResult>(Methods.restore, { sessionId: id });
      await vscode.env.clipboard.writeText(copyTextOf(result).text);
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot restore session ${id.slice(0, 8)}: ${errorText(error)}`);
      return;
    }
    void vscode.window.showInformationMessage("Deja: the restore transcript is on the clipboard — paste it into a Continue chat.");
  }

  dispose(): void {
    this.subscription.dispose();
    for (const entry of this.panels.values()) {
      entry.panel.dispose();
    }
    this.panels.clear();
  }
}
