/** Deja: Show Past Edits to This File — a peek over the places past edits wrote that still stand,
 * on the one at (or nearest) the cursor; Deja: List Past Edits of This File — a quick pick of every
 * edit, write and read of the file (on demand, so it never covers the peek): a pick opens the
 * peek on that edit, or the session at that turn; row buttons open the session or the diff of
 * replaced vs written text. */

import * as vscode from "vscode";
import { fileEventItem, pastTitle } from "./fileEvents";
import { baseName, diffSides, diffTitle, standingRanges } from "../shared/format";
import { Commands, Methods, type FileEvent, type FileHistoryResult, type LspRange } from "../shared/protocol";
import { EDIT_SCHEME } from "../sessions/sessionUri";
import { errorText, type Sidecar } from "../server/sidecar";

const MAX_TEXTS = 200;

interface EventPick extends vscode.QuickPickItem {
  event: FileEvent;
}

const OPEN_SESSION: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("comment-discussion"), tooltip: "Open the session at this turn" };
const SHOW_DIFF: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("diff"), tooltip: "Show what it replaced and wrote" };

interface FilePast {
  uri: vscode.Uri;
  name: string;
  /** Edits, writes and reads, newest first. */
  events: FileEvent[];
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
    const found = await this.past(argument);
    if (found === undefined) {
      return;
    }
    const locations = standing(found.uri, edits(found.events));
    if (locations.length === 0) {
      await this.pick(found);
      return;
    }
    const editor = await vscode.window.showTextDocument(found.uri, { preserveFocus: false, preview: false });
    await peek(found.uri, nearest(locations, editor.selection.active).range.start, locations);
  }

  /** Every edit, write and read of the file in a quick pick. */
  async list(argument?: unknown): Promise<void> {
    const found = await this.past(argument);
    if (found !== undefined) {
      await this.pick(found);
    }
  }

  private async past(argument: unknown): Promise<FilePast | undefined> {
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
    if (result.events.length === 0) {
      void vscode.window.showInformationMessage(`Deja: no Continue session edited or read ${baseName(uri.fsPath)}.`);
      return undefined;
    }
    return { uri, name: baseName(result.path), events: result.events };
  }

  private pick(found: FilePast): Promise<void> {
    const quickPick = vscode.window.createQuickPick<EventPick>();
    quickPick.title = pastTitle(found.name, found.events);
    quickPick.placeholder = "An edit: peek at it · a read: open its session there";
    quickPick.matchOnDescription = true;
    quickPick.matchOnDetail = true;
    quickPick.items = found.events.map((event) => ({
      ...fileEventItem(event),
      event,
      buttons: event.role === "edit" ? [OPEN_SESSION, SHOW_DIFF] : [OPEN_SESSION],
    }));
    return new Promise((resolve) => {
      const act = (run: () => Promise<void>): void => {
        quickPick.hide();
        void run().finally(resolve);
      };
      quickPick.onDidTriggerItemButton(({ item, button }) =>
        act(() => (button === SHOW_DIFF ? this.diff(item.event) : openSession(item.event))),
      );
      quickPick.onDidAccept(() => {
        const picked = quickPick.selectedItems[0];
        if (picked !== undefined) {
          act(() => this.open(found, picked.event));
        }
      });
      quickPick.onDidHide(() => {
        quickPick.dispose();
        resolve();
      });
      quickPick.show();
    });
  }

  /** An edit whose text stands: the peek on it, among the others; otherwise its session there. */
  private async open(found: FilePast, event: FileEvent): Promise<void> {
    if (event.role !== "edit" || event.range === null) {
      await openSession(event);
      return;
    }
    await vscode.window.showTextDocument(found.uri, { preserveFocus: false, preview: false });
    await peek(found.uri, toRange(event.range).start, standing(found.uri, edits(found.events)));
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

function edits(events: readonly FileEvent[]): FileEvent[] {
  return events.filter((event) => event.role === "edit");
}

async function peek(uri: vscode.Uri, at: vscode.Position, locations: vscode.Location[]): Promise<void> {
  await vscode.commands.executeCommand("editor.action.peekLocations", uri, at, locations, "peek");
}

async function openSession(event: FileEvent): Promise<void> {
  await vscode.commands.executeCommand(Commands.openSession, event.session_id, event.turn);
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
