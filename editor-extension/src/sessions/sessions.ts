/** Read-only `deja-session:` markdown documents (one per session) and the session a command is about. */

import * as vscode from "vscode";
import { errorText, type Sidecar } from "../server/sidecar";
import { titleOf } from "../shared/format";
import { Methods, type SessionResult, type SessionSummary } from "../shared/protocol";
import { isSessionId, SESSION_SCHEME, sessionDocument, sessionIdOf, turnLine } from "./sessionUri";

export interface SessionTarget {
  id: string;
  title?: string;
}

interface Cached {
  markdown: string;
  session: SessionSummary;
}

export class SessionDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly cache = new Map<string, Cached>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly sidecar: Sidecar) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(SESSION_SCHEME, this),
      sidecar.onIndexChanged((ids) => this.refresh(ids)),
    );
  }

  /** The session's title when a document or list already fetched it. */
  knownTitle(id: string): string | undefined {
    return this.cache.get(id)?.session.title;
  }

  private async fetch(id: string): Promise<Cached> {
    const result = await this.sidecar.request<SessionResult>(Methods.session, { sessionId: id });
    const cached = { markdown: result.markdown, session: result.session };
    this.cache.set(result.session.id, cached);
    return cached;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = sessionIdOf(uri.query);
    if (id === undefined) {
      return "# Not a Deja session\n\nThis document's address names no session.\n";
    }
    const cached = this.cache.get(id);
    if (cached !== undefined) {
      return cached.markdown;
    }
    try {
      return (await this.fetch(id)).markdown;
    } catch (error) {
      return `# Session ${id}\n\nDeja could not load it: ${errorText(error)}\n`;
    }
  }

  private refresh(ids: string[]): void {
    const changed = new Set(ids);
    for (const id of ids) {
      this.cache.delete(id);
    }
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === SESSION_SCHEME) {
        const id = sessionIdOf(document.uri.query);
        if (id !== undefined && changed.has(id)) {
          this.changeEmitter.fire(document.uri);
        }
      }
    }
  }

  /** Opens the session read-only, at `turn` when given. */
  async open(id: string, turn?: number): Promise<vscode.TextEditor | undefined> {
    let cached: Cached;
    try {
      cached = await this.fetch(id);
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot open session ${id}: ${errorText(error)}`);
      return undefined;
    }
    const { path, query } = sessionDocument(cached.session.id, titleOf(cached.session.title));
    const uri = vscode.Uri.from({ scheme: SESSION_SCHEME, path, query });
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== "markdown") {
      await vscode.languages.setTextDocumentLanguage(document, "markdown");
    }
    const line = Math.min(turnLine(document.getText(), turn), Math.max(document.lineCount - 1, 0));
    const position = new vscode.Position(line, 0);
    const editor = await vscode.window.showTextDocument(document, {
      preview: false,
      selection: new vscode.Range(position, position),
    });
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.AtTop);
    return editor;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.changeEmitter.dispose();
  }
}

/** The session a command was invoked on: a `deja-session:` URI (editor title), a tree node, an id
 * (hover link, code lens), `{sessionId}`; else the active session document. */
export function targetOf(argument: unknown): SessionTarget | undefined {
  if (argument instanceof vscode.Uri) {
    const id = argument.scheme === SESSION_SCHEME ? sessionIdOf(argument.query) : undefined;
    return id !== undefined ? { id } : undefined;
  }
  if (isSessionId(argument)) {
    return { id: argument };
  }
  if (Array.isArray(argument) && argument.length > 0) {
    return targetOf(argument[0]);
  }
  if (typeof argument === "object" && argument !== null) {
    const record = argument as { sessionId?: unknown; session?: { id?: unknown; title?: unknown }; id?: unknown; title?: unknown };
    if (isSessionId(record.sessionId)) {
      return { id: record.sessionId, title: typeof record.title === "string" ? record.title : undefined };
    }
    if (record.session !== undefined && isSessionId(record.session.id)) {
      return { id: record.session.id, title: typeof record.session.title === "string" ? record.session.title : undefined };
    }
  }
  return undefined;
}

export function activeSessionTarget(): SessionTarget | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri !== undefined ? targetOf(uri) : undefined;
}

/** Asks which session (recent sessions of this workspace) when a command got none. */
export async function pickSession(sidecar: Sidecar, placeHolder: string): Promise<SessionTarget | undefined> {
  const active = activeSessionTarget();
  if (active !== undefined) {
    return active;
  }
  const picked = await vscode.window.showQuickPick(
    (async () => {
      const result = await sidecar.request<{ sessions: SessionSummary[] }>(Methods.sessions, { limit: 50 });
      return result.sessions.map((session) => ({
        label: titleOf(session.title),
        description: `${session.project} · ${session.last_active?.slice(0, 10) ?? ""}`,
        detail: session.id,
        target: { id: session.id, title: session.title },
      }));
    })(),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.target;
}
