/** Deja for VS Code: a thin client of the `deja serve` sidecar (docs/protocol.md). */

import * as vscode from "vscode";
import { CONTINUE_EXTENSION_ID, SessionActions } from "./actions/actions";
import { registerCommands } from "./commands";
import { ShareActions } from "./share/share";
import { ContinueSetup } from "./continueSetup/continueSetup";
import { FixThis } from "./fixThis/fixThis";
import { PastEdits } from "./pastEdits/pastEdits";
import { RestoreContext } from "./restore/restore";
import { SearchHistory } from "./search/search";
import { SearchView } from "./search/searchViewResults";
import { SessionDocuments } from "./sessions/sessions";
import { SessionView } from "./sessionView/sessionView";
import { affectsCodeLens, affectsServer } from "./server/settings";
import { Sidecar } from "./server/sidecar";
import { StatusItem } from "./server/status";
import { HistoryTree } from "./sessions/tree";

let sidecar: Sidecar | undefined;

function setContinueInstalled(): void {
  // The Deja History view is contributed twice: to Continue's view container and to the Explorer,
  // each with a `when` on this key (a container that does not exist falls back to the Explorer).
  const installed = vscode.extensions.getExtension(CONTINUE_EXTENSION_ID) !== undefined;
  void vscode.commands.executeCommand("setContext", "deja.continueInstalled", installed);
}

export function activate(context: vscode.ExtensionContext): void {
  setContinueInstalled();
  const output = vscode.window.createOutputChannel("Deja", { log: true });
  const server = new Sidecar(output, context.extensionPath);
  sidecar = server;
  const sessions = new SessionDocuments(server);
  const actions = new SessionActions(server, sessions);
  const share = new ShareActions(server, actions);
  const pastEdits = new PastEdits(server);
  const tree = new HistoryTree(server);
  const search = new SearchHistory(server);
  const restore = new RestoreContext(server);
  const continueSetup = new ContinueSetup(server, context.globalStorageUri.fsPath);
  const fixThis = new FixThis(server);
  const sessionView = new SessionView(context.extensionUri, server, pastEdits);
  const searchView = new SearchView(server);

  context.subscriptions.push(
    output,
    server,
    sessions,
    pastEdits,
    tree,
    search,
    restore,
    fixThis,
    sessionView,
    searchView,
    new StatusItem(server),
    vscode.extensions.onDidChange(setContinueInstalled),
    ...registerCommands({ server, output, sessions, actions, share, pastEdits, tree, search, restore, continueSetup, fixThis, sessionView, searchView }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsServer(event)) {
        void server.restart("the deja settings changed");
      } else if (affectsCodeLens(event)) {
        server.refreshCodeLenses();
      }
    }),
  );
  void server.start();
}

export async function deactivate(): Promise<void> {
  await sidecar?.stop();
  sidecar = undefined;
}
