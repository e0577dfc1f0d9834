/** Fork Session Here, Reopen in Continue, Copy Session Id. */

import { accessSync, constants, statSync } from "node:fs";
import * as vscode from "vscode";
import { CN_INSTALL, forkPlan } from "./fork";
import { titleOf } from "../shared/format";
import { Methods, type ForkCommandResult, type SessionResult } from "../shared/protocol";
import { findOnPath } from "./which";
import { pickSession, targetOf, type SessionDocuments, type SessionTarget } from "../sessions/sessions";
import { errorText, type Sidecar } from "../server/sidecar";

export const CONTINUE_EXTENSION_ID = "Continue.continue";
const FOCUS_ATTEMPTS = 12;
const FOCUS_RETRY_MS = 400;

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) {
      return false;
    }
    accessSync(path, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class SessionActions {
  constructor(
    private readonly sidecar: Sidecar,
    private readonly sessions: SessionDocuments,
  ) {}

  /** The session an action is for: its argument (a tree item, a view) or one the user picks. */
  async target(argument: unknown, placeHolder: string): Promise<SessionTarget | undefined> {
    try {
      return targetOf(argument) ?? (await pickSession(this.sidecar, placeHolder));
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: ${errorText(error)}`);
      return undefined;
    }
  }

  private async title(target: SessionTarget): Promise<string> {
    const known = target.title ?? this.sessions.knownTitle(target.id);
    if (known !== undefined) {
      return titleOf(known);
    }
    try {
      const result = await this.sidecar.request<SessionResult>(Methods.session, { sessionId: target.id });
      return titleOf(result.session.title);
    } catch {
      return target.id.slice(0, 8);
    }
  }

  /** The folder a fork runs in when the session's own is not on this machine. */
  private currentFolder(): string | undefined {
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = (active !== undefined ? vscode.workspace.getWorkspaceFolder(active) : undefined) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
  }

  async fork(argument?: unknown): Promise<void> {
    const target = await this.target(argument, "Fork which Continue session?");
    if (target === undefined) {
      return;
    }
    let fork: ForkCommandResult;
    try {
      fork = await this.sidecar.request<ForkCommandResult>(Methods.forkCommand, { sessionId: target.id });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot fork session ${target.id.slice(0, 8)}: ${errorText(error)}`);
      return;
    }
    if (findOnPath(fork.command, process.env.PATH, isExecutable) === undefined) {
      const choice = await vscode.window.showWarningMessage(
        `Deja: Continue's CLI \`${fork.command}\` is not on PATH. Install it with \`${CN_INSTALL}\`, then fork again.`,
        "Install in Terminal",
        "Copy Command",
      );
      if (choice === "Install in Terminal") {
        const terminal = vscode.window.createTerminal({ name: "Install Continue CLI" });
        terminal.show();
        terminal.sendText(CN_INSTALL, true);
      } else if (choice === "Copy Command") {
        await vscode.env.clipboard.writeText(CN_INSTALL);
      }
      return;
    }
    const plan = forkPlan(fork, await this.title(target), this.currentFolder());
    this.sidecar.log(`fork: ${plan.line} in ${plan.cwd ?? "the terminal's default folder"}`);
    const terminal = vscode.window.createTerminal({
      name: plan.terminalName,
      cwd: plan.cwd,
      iconPath: new vscode.ThemeIcon("repo-forked"),
    });
    terminal.show(false);
    terminal.sendText(plan.line, true);
    void vscode.window.showInformationMessage(plan.message);
  }

  async reopen(argument?: unknown): Promise<void> {
    const target = await this.target(argument, "Reopen which session in Continue?");
    if (target === undefined) {
      return;
    }
    const continueExtension = vscode.extensions.getExtension(CONTINUE_EXTENSION_ID);
    if (continueExtension === undefined) {
      const choice = await vscode.window.showInformationMessage(
        "Deja: the Continue extension is not installed in this editor, so it cannot reopen the session. Fork it with Continue's CLI instead?",
        "Fork Session Here",
      );
      if (choice === "Fork Session Here") {
        await this.fork(target);
      }
      return;
    }
    const wasActive = continueExtension.isActive;
    try {
      if (!wasActive) {
        await continueExtension.activate();
      }
      await vscode.commands.executeCommand("continue.navigateTo", "/", false);
    } catch (error) {
      this.sidecar.warn(`continue.navigateTo failed: ${errorText(error)}`);
    }
    // focusContinueSessionId is registered when Continue activates and acts once its chat page
    // is mounted: retry briefly while it comes up.
    let lastError: unknown;
    for (let attempt = 0; attempt < FOCUS_ATTEMPTS; attempt++) {
      if (attempt > 0 || !wasActive) {
        await sleep(FOCUS_RETRY_MS);
      }
      try {
        await vscode.commands.executeCommand("continue.focusContinueSessionId", target.id);
        this.sidecar.log(`reopened ${target.id} in Continue`);
        return;
      } catch (error) {
        lastError = error;
      }
    }
    this.sidecar.warn(`continue.focusContinueSessionId failed: ${errorText(lastError)}`);
    void vscode.window.showWarningMessage(`Deja: Continue did not open session ${target.id.slice(0, 8)} (${errorText(lastError)}).`);
  }

  async copyId(argument?: unknown): Promise<void> {
    const target = await this.target(argument, "Copy the id of which session?");
    if (target === undefined) {
      return;
    }
    await vscode.env.clipboard.writeText(target.id);
    vscode.window.setStatusBarMessage(`Deja: copied session id ${target.id}`, 3000);
  }
}
