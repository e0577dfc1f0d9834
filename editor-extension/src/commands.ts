/** Every `deja.vscode.*` command, registered in one place. The table is typed by `Commands`: a
 * command id without a handler here does not compile. */

import * as vscode from "vscode";
import type { SessionActions } from "./actions/actions";
import type { ContinueSetup } from "./continueSetup/continueSetup";
import { showDiagnostics } from "./diagnostics/diagnostics";
import type { FixThis } from "./fixThis/fixThis";
import type { PastEdits } from "./pastEdits/pastEdits";
import { Commands } from "./shared/protocol";
import type { RestoreContext } from "./restore/restore";
import type { SearchHistory } from "./search/search";
import type { SearchView } from "./search/searchViewResults";
import { pickSession, targetOf, type SessionDocuments } from "./sessions/sessions";
import type { SessionView } from "./sessionView/sessionView";
import type { ShareActions } from "./share/share";
import type { Sidecar } from "./server/sidecar";
import type { HistoryTree } from "./sessions/tree";

/** What the commands act on. */
export interface Features {
  server: Sidecar;
  output: vscode.OutputChannel;
  sessions: SessionDocuments;
  actions: SessionActions;
  share: ShareActions;
  pastEdits: PastEdits;
  tree: HistoryTree;
  search: SearchHistory;
  restore: RestoreContext;
  continueSetup: ContinueSetup;
  fixThis: FixThis;
  sessionView: SessionView;
  searchView: SearchView;
}

/** Arguments come from menus, hover links, code lenses and other extensions: checked, not trusted. */
type Handler = (...args: unknown[]) => unknown;

function handlers(f: Features): Record<keyof typeof Commands, Handler> {
  return {
    search: (query?: unknown) => f.search.show(typeof query === "string" ? query : undefined),
    toggleSearchScope: () => f.search.toggleScope(),
    restartServer: () => f.server.restart("Deja: Restart Server"),
    showOutput: () => f.output.show(true),
    showServerProblem: () => f.server.showFailure(),
    showPastEdits: (argument?: unknown) => f.pastEdits.show(argument),
    listPastEdits: (argument?: unknown) => f.pastEdits.list(argument),
    // The session view, at `turn` (marked); an id, or a view's session row. No session: search.
    openSession: (id?: unknown, turn?: unknown) => {
      const target = targetOf(id);
      if (target === undefined) {
        void vscode.commands.executeCommand(Commands.search);
        return;
      }
      return f.sessionView.open(target.id, turn);
    },
    openSessionRendered: (argument?: unknown, turn?: unknown) => f.sessionView.open(argument, turn),
    openSessionAsText: async (argument?: unknown, turn?: unknown) => {
      const target = targetOf(argument) ?? (await pickSession(f.server, "Which session to open as text?"));
      if (target !== undefined) {
        await f.sessions.open(target.id, typeof turn === "number" ? turn : undefined);
      }
    },
    forkSession: (argument?: unknown) => f.actions.fork(argument),
    reopenInContinue: (argument?: unknown) => f.actions.reopen(argument),
    copySessionId: (argument?: unknown) => f.actions.copyId(argument),
    refreshHistory: () => f.tree.refresh(),
    restoreContext: (selection?: unknown) =>
      typeof selection === "string" ? f.restore.run(selection) : f.restore.run(undefined, targetOf(selection)?.id),
    copyRestore: (argument?: unknown) => f.restore.copy(argument),
    connectContinue: () => f.continueSetup.connect(),
    disconnectContinue: () => f.continueSetup.disconnect(),
    showDiagnostics: () => showDiagnostics(f.server),
    whatFixedThis: (argument?: unknown) => f.fixThis.run(argument),
    searchInView: () => f.searchView.focus(),
    searchViewLoadMore: () => f.searchView.loadMore(),
    recoverIntoContinue: (argument?: unknown) => f.share.recover(argument),
    exportSession: (argument?: unknown) => f.share.export(argument),
  };
}

export function registerCommands(features: Features): vscode.Disposable[] {
  const table = handlers(features);
  return (Object.keys(table) as (keyof typeof Commands)[]).map((name) => vscode.commands.registerCommand(Commands[name], table[name]));
}
