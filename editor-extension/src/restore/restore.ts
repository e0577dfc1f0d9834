/** Deja: Restore Context — `deja/restore` shown as a read-only plain-text `deja-restore:` document,
 * exactly the transcript `deja restore` prints, with a Copy button (editor title) for the same bytes. */

import * as vscode from "vscode";
import { Methods, type RestoreResult } from "../shared/protocol";
import { copyTextOf, RESTORE_PLACEHOLDER, RESTORE_SCHEME, restoreParams, restorePath } from "./restoreParams";
import { defaultScope } from "../server/settings";
import { errorText, type Sidecar } from "../server/sidecar";

const KEEP = 20; // restore documents whose results stay in memory

export class RestoreContext implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly results = new Map<string, RestoreResult>();
  private counter = 0;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sidecar: Sidecar) {
    this.subscriptions = [vscode.workspace.registerTextDocumentContentProvider(RESTORE_SCHEME, this)];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const result = this.results.get(uri.toString());
    return result !== undefined ? copyTextOf(result).text : "This restore is no longer in memory: run Deja: Restore Context again.\n";
  }

  /** Asks for the selection (unless given or a session is), restores, opens the result. */
  async run(given?: string, sessionId?: string): Promise<vscode.TextEditor | undefined> {
    const input =
      given ??
      (sessionId !== undefined ? "" : undefined) ??
      (await vscode.window.showInputBox({
        title: "Deja: Restore Context",
        placeHolder: RESTORE_PLACEHOLDER,
        prompt: "Which earlier sessions to bring back (empty: the numbered list)",
      }));
    if (input === undefined) {
      return undefined;
    }
    const params = { ...restoreParams(input, defaultScope()), ...(sessionId !== undefined ? { sessionId } : {}) };
    let result: RestoreResult;
    try {
      result = await this.sidecar.request<RestoreResult>(Methods.restore, params);
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot restore: ${errorText(error)}`);
      return undefined;
    }
    this.counter += 1;
    const uri = vscode.Uri.from({ scheme: RESTORE_SCHEME, path: restorePath(result, sessionId?.slice(0, 8) ?? params.selection), query: `n=${String(this.counter)}` });
    this.results.set(uri.toString(), result);
    for (const key of [...this.results.keys()].slice(0, Math.max(0, this.results.size - KEEP))) {
      this.results.delete(key);
    }
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== "plaintext") {
      await vscode.languages.setTextDocumentLanguage(document, "plaintext");
    }
    return vscode.window.showTextDocument(document, { preview: false });
  }

  /** Copy (editor title of a `deja-restore:` document): the transcript, else the listing. */
  async copy(argument?: unknown): Promise<void> {
    const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
    const result = uri?.scheme === RESTORE_SCHEME ? this.results.get(uri.toString()) : undefined;
    if (result === undefined) {
      void vscode.window.showErrorMessage("Deja: nothing to copy — run Deja: Restore Context first.");
      return;
    }
    const { text, what } = copyTextOf(result);
    try {
      await vscode.env.clipboard.writeText(text);
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot copy to the clipboard: ${errorText(error)}`);
      return;
    }
    vscode.window.setStatusBarMessage(`Deja: copied ${what} to the clipboard`, 5000);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.results.clear();
  }
}
