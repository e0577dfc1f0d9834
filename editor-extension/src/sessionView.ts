/** Deja: Open Session Rendered — a session in VS Code's own Markdown preview: theme colours, the
 * workbench font, its strict content security policy and keyboard navigation come with it. The
 * source document opens first (at the turn, when given); the preview does not yet follow
 * it to the turn. */

import * as vscode from "vscode";
import { pickSession, targetOf, type SessionDocuments } from "./sessions";
import type { Sidecar } from "./sidecar";

export async function openSessionRendered(sessions: SessionDocuments, sidecar: Sidecar, argument?: unknown, turn?: unknown): Promise<void> {
  const target = targetOf(argument) ?? (await pickSession(sidecar, "Which session to open rendered?"));
  if (target === undefined) {
    return;
  }
  const editor = await sessions.open(target.id, typeof turn === "number" ? turn : undefined);
  if (editor !== undefined) {
    await vscode.commands.executeCommand("markdown.showPreview", editor.document.uri);
  }
}
