/** Recover into Continue (`deja/recover`: a session Continue lost written back as a new
 * session, then offered to open) and Export Session… (`deja/export`, saved where the user
 * picks). */

import * as vscode from "vscode";
import type { SessionActions } from "../actions/actions";
import { copyWouldHelp, recoveredMessage } from "./shareResults";
import { Methods } from "../shared/protocol";
import type { ExportFormat, ExportResult, RecoverResult } from "./shareResults";
import { errorText, type Sidecar } from "../server/sidecar";

const FORMATS: { label: string; description: string; format: ExportFormat; filter: string }[] = [
  { label: "HTML", description: "one self-contained page, as the session view shows it", format: "html", filter: "HTML" },
  { label: "Markdown", description: "as `deja show --full`", format: "md", filter: "Markdown" },
  { label: "JSON", description: "Deja's wire shape, versioned", format: "json", filter: "JSON" },
];

export class ShareActions {
  constructor(
    private readonly sidecar: Sidecar,
    private readonly actions: SessionActions,
  ) {}

  async recover(argument?: unknown, copy = false): Promise<void> {
    const target = await this.actions.target(argument, "Recover which session into Continue?");
    if (target === undefined) {
      return;
    }
    let result: RecoverResult;
    try {
      result = await this.sidecar.request<RecoverResult>(Methods.recover, { sessionId: target.id, copy });
    } catch (error) {
      const text = errorText(error);
      if (!copy && copyWouldHelp(text)) {
        const choice = await vscode.window.showInformationMessage(`Deja: ${text}.`, "Recover a Copy");
        if (choice === "Recover a Copy") {
          await this.recover(target, true);
        }
        return;
      }
      void vscode.window.showErrorMessage(`Deja: cannot recover session ${target.id.slice(0, 8)}: ${text}`);
      return;
    }
    this.sidecar.log(`recover: ${target.id} → ${result.new_id} (${result.file})`);
    const choice = await vscode.window.showInformationMessage(recoveredMessage(result), "Open in Continue", "Fork with cn");
    if (choice === "Open in Continue") {
      await this.actions.reopen({ sessionId: result.new_id, title: result.title });
    } else if (choice === "Fork with cn") {
      await this.actions.fork({ sessionId: result.new_id, title: result.title });
    }
  }

  async export(argument?: unknown): Promise<void> {
    const target = await this.actions.target(argument, "Export which session?");
    if (target === undefined) {
      return;
    }
    const picked = await vscode.window.showQuickPick(FORMATS, { placeHolder: "Export the session as…" });
    if (picked === undefined) {
      return;
    }
    let result: ExportResult;
    try {
      result = await this.sidecar.request<ExportResult>(Methods.export, { sessionId: target.id, format: picked.format });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot export session ${target.id.slice(0, 8)}: ${errorText(error)}`);
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = await vscode.window.showSaveDialog({
      defaultUri: folder !== undefined ? vscode.Uri.joinPath(folder, result.name) : undefined,
      filters: { [picked.filter]: [result.format] },
      saveLabel: "Export",
    });
    if (uri === undefined) {
      return;
    }
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(result.text));
    const open = await vscode.window.showInformationMessage(`Deja: exported to ${uri.fsPath} (secrets redacted as in Deja's index).`, "Open");
    if (open === "Open") {
      await (result.format === "html" ? vscode.env.openExternal(uri) : vscode.window.showTextDocument(uri));
    }
  }
}
