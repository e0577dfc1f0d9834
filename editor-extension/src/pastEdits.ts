/** Deja: Show Past Edits to This File — a peek over the places past edits wrote that still stand,
 * on the one at (or nearest) the cursor; Deja: List Past Edits of This File — a quick pick of every
 * edit (on demand, so it never covers the peek); a pick opens a diff of replaced vs written text. */

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

  /** `argument`: a `file:` URI string (code lens, hover link), a Uri (editor context menu), or none.
   * The peek first; the list when no written text still stands (nothing to peek at). */
  async show(argument?: unknown): Promise<void> {
    const found = await this.edits(argument);
    if (found === undefined) {
      return;
    }
    const locations = standing(found.uri, found.edits);
    if (locations.length === 0) {
      await this.pick(found.edits, found.name, 0);
      return;
    }
    const editor = await vscode.window.showTextDocument(found.uri, { preserveFocus: false, preview: false });
    const at = nearest(locations, editor.selection.active);
    await vscode.commands.executeCommand("editor.action.peekLocations", found.uri, at.range.start, locations, "peek");
  }

  /** Every edit, read and write of the file in a quick pick; a pick opens its diff. */
  async list(argument?: unknown): Promise<void> {
    const found = await this.edits(argument);
    if (found !== undefined) {
      await this.pick(found.edits, found.name, standing(found.uri, found.edits).length);
    }
  }

  private async edits(argument: unknown): Promise<{ uri: vscode.Uri; name: string; edits: FileEvent[] } | undefined> {
    const uri =
      argument instanceof vscode.Uri
        ? argument
        : typeof argument === "string"
          ? vscode.Uri.parse(argument)
          : vscode.window.activeTextEditor?.document.uri;
    if (uri === undefined || uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Deja: past edits are of a file: open one first.");
      return undefined;
    }
    let result: FileHistoryResult;
    try {
      result = await this.sidecar.request<FileHistoryResult>(Methods.fileHistory, { uri: uri.toString() });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot read the history of ${baseName(uri.fsPath)}: ${errorText(error)}`);
      return undefined;
    }
    const edits = result.events.filter((event) => event.role === "edit");
    if (edits.length === 0) {
      void vscode.window.showInformationMessage(`Deja: no Continue session edited ${baseName(uri.fsPath)}.`);
      return undefined;
    }
    return { uri, name: baseName(result.path), edits };
  }

  private async pick(edits: FileEvent[], name: string, stillInFile: number): Promise<void> {
    const picked = await vscode.window.showQuickPick<EditPick>(
      edits.map((event) => ({ ...editItem(event), event })),
      {
        title: `${edits.length} past edit${edits.length === 1 ? "" : "s"} of ${name} · ${stillInFile} still in the file`,
        placeHolder: "Pick an edit to see what it replaced and wrote",
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

/** The location holding `at`, else the one whose lines are nearest to it. */
function nearest(locations: readonly vscode.Location[], at: vscode.Position): vscode.Location {
  const distance = (location: vscode.Location): number =>
    location.range.contains(at) ? -1 : Math.min(Math.abs(location.range.start.line - at.line), Math.abs(location.range.end.line - at.line));
  return locations.reduce((best, location) => (distance(location) < distance(best) ? location : best));
}

/** Where past edits' written text still stands, one location per distinct range. */
export function standing(uri: vscode.Uri, edits: readonly FileEvent[]): vscode.Location[] {
  return standingRanges(edits).map((range) => new vscode.Location(uri, toRange(range)));
}
