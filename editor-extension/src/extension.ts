/** Deja for VS Code: a thin client of the `deja serve` sidecar (docs/protocol.md). */

import * as vscode from "vscode";
import { CONTINUE_EXTENSION_ID, SessionActions } from "./actions";
import { PastEdits } from "./pastEdits";
import { Commands } from "./pure/protocol";
import { RestoreContext } from "./restore";
import { SearchHistory } from "./search";
import { SessionDocuments } from "./sessions";
import { Sidecar } from "./sidecar";
import { StatusItem } from "./status";
import { HistoryTree } from "./tree";

let sidecar: Sidecar | undefined;

function setContinueInstalled(): void {
  // The Deja History view is contributed twice: to Continue's view container and to the Explorer,
  // each with a `when` on this key (a container that does not exist falls back to the Explorer).
  const installed = vscode.extensions.getExtension(CONTINUE_EXTENSION_ID) !== undefined;
  void vscode.commands.executeCommand("setContext", "deja.continueInstalled", installed);
}

export function activate(context: vscode.ExtensionContext): void {
  setContinueInstalled();
  const output = vscode.window.createOutputChannel("Deja");
  const server = new Sidecar(output);
  sidecar = server;
  const sessions = new SessionDocuments(server);
  const actions = new SessionActions(server, sessions);
  const pastEdits = new PastEdits(server);
  const tree = new HistoryTree(server);

  context.subscriptions.push(
    output,
    server,
    sessions,
    pastEdits,
    tree,
    new SearchHistory(server, sessions),
    new RestoreContext(server),
    new StatusItem(server),
    vscode.extensions.onDidChange(setContinueInstalled),
    vscode.commands.registerCommand(Commands.restartServer, () => server.restart("Deja: Restart Server")),
    vscode.commands.registerCommand(Commands.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(Commands.showServerProblem, () => server.showFailure()),
    vscode.commands.registerCommand(Commands.openSession, (id?: unknown, turn?: unknown) => {
      if (typeof id !== "string") {
        void vscode.commands.executeCommand(Commands.search);
        return;
      }
      void sessions.open(id, typeof turn === "number" ? turn : undefined);
    }),
    vscode.commands.registerCommand(Commands.showPastEdits, (argument?: unknown) => pastEdits.show(argument)),
    vscode.commands.registerCommand(Commands.forkSession, (argument?: unknown) => actions.fork(argument)),
    vscode.commands.registerCommand(Commands.reopenInContinue, (argument?: unknown) => actions.reopen(argument)),
    vscode.commands.registerCommand(Commands.copySessionId, (argument?: unknown) => actions.copyId(argument)),
    vscode.commands.registerCommand(Commands.refreshHistory, () => tree.refresh()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (Sidecar.needsRestart(event)) {
        void server.restart("the deja settings changed");
      } else if (event.affectsConfiguration("deja.codeLens.enabled")) {
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
