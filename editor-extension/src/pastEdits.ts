/** Deja: Show Past Edits to This File — a peek over the places past edits wrote that still stand,
 * and a quick pick of every edit; a pick opens a diff of replaced vs written text. */

import * as vscode from "vscode";
import { baseName, diffSides, diffTitle, editItem, standingRanges } from "./pure/format";
import { Methods, type FileEvent, type FileHistoryResult, type LspRange } from "./pure/protocol";
import { EDIT_SCHEME } from "./pure/sessionUri";
import { errorText, type Sidecar } from "./sidecar";

const MAX_TEXTS = 200;

interface EditPick extends vscode.QuickPickItem {
  event: FileEvent;
}

function toRange(range: LspRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** The text of each side of the diffs this session opened, by `deja-edit:` path. */
class EditTexts implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? "";
  }

  add(side: "replaced" | "written", name: string, text: string, key: number): vscode.Uri {
    const path = `/${key}/${side}/${name}`;
    this.texts.set(path, text);
    // Keep the texts of the last diffs only (a Map iterates in insertion order).
    while (this.texts.size > MAX_TEXTS) {
      const oldest = this.texts.keys().next().value;
      if (oldest === undefined) {
        break;
      }
      this.texts.delete(oldest);
    }
    return vscode.Uri.from({ scheme: EDIT_SCHEME, path });
  }

  next(): number {
    return ++this.counter;
  }
}

export class PastEdits implements vscode.Disposable {
  private readonly texts = new EditTexts();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sidecar: Sidecar) {
    this.subscriptions = [vscode.workspace.registerTextDocumentContentProvider(EDIT_SCHEME, this.texts)];
  }

  /** `argument`: a `file:` URI string (code lens, hover link), a Uri (editor context menu), or none. */
  async show(argument?: unknown): Promise<void> {
    const uri =
      argument instanceof vscode.Uri
        ? argument
        : typeof argument === "string"
          ? vscode.Uri.parse(argument)
          : vscode.window.activeTextEditor?.document.uri;
    if (uri === undefined || uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Deja: Show Past Edits works on a file: open one first.");
      return;
    }
    let result: FileHistoryResult;
    try {
      result = await this.sidecar.request<FileHistoryResult>(Methods.fileHistory, { uri: uri.toString() });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot read the history of ${baseName(uri.fsPath)}: ${errorText(error)}`);
      return;
    }
    const edits = result.events.filter((event) => event.role === "edit");
    if (edits.length === 0) {
      void vscode.window.showInformationMessage(`Deja: no Continue session edited ${baseName(uri.fsPath)}.`);
      return;
    }
    const locations = standing(uri, edits);
    if (locations.length > 0) {
      const editor = await vscode.window.showTextDocument(uri, { preserveFocus: false, preview: false });
      const at = editor.selection.active;
      const inside = locations.find((location) => location.range.contains(at));
      await vscode.commands.executeCommand("editor.action.peekLocations", uri, (inside ?? locations[0]).range.start, locations, "peek");
    }
    const name = baseName(result.path);
    const picked = await vscode.window.showQuickPick<EditPick>(
      edits.map((event) => ({ ...editItem(event), event })),
      {
        title: `${edits.length} past edit${edits.length === 1 ? "" : "s"} of ${name} · ${locations.length} still in the file (peek)`,
        placeHolder: "Pick an edit to see what it replaced and wrote (Escape keeps the peek)",
        matchOnDescription: true,
        matchOnDetail: true,
      },
    );
    if (picked !== undefined) {
      await this.diff(picked.event);
    }
  }

  async diff(event: FileEvent): Promise<void> {
    const { replaced, written } = diffSides(event.hunks);
    const key = this.texts.next();
    const name = baseName(event.path);
    const left = this.texts.add("replaced", name, replaced, key);
    const right = this.texts.add("written", name, written, key);
    await vscode.commands.executeCommand("vscode.diff", left, right, diffTitle(event), { preview: true });
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

/** Where past edits' written text still stands, one location per distinct range. */
export function standing(uri: vscode.Uri, edits: readonly FileEvent[]): vscode.Location[] {
  return standingRanges(edits).map((range) => new vscode.Location(uri, toRange(range)));
}
