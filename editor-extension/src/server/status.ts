/** The status bar item: starting / indexing progress, then `Deja: N sessions`; click → search. */

import * as vscode from "vscode";
import { indexingText, sessionsText } from "../shared/format";
import { Commands, Methods, type SessionsResult } from "../shared/protocol";
import { storeProblemLook, type StatusLook } from "./storeStatus";
import { errorText, type Sidecar } from "./sidecar";

const COUNT_LIMIT = 500;

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("deja.status", vscode.StatusBarAlignment.Right, 90);
  private readonly subscriptions: vscode.Disposable[];
  private indexing = false;
  /** Set while the server does not apply Continue's store (`deja/storeStatus`). */
  private storeProblem: StatusLook | undefined;
  private countTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly sidecar: Sidecar) {
    this.item.name = "Deja";
    this.item.command = Commands.search;
    this.item.text = "$(sync~spin) Deja";
    this.item.tooltip = "Deja: starting its server";
    this.item.show();
    this.subscriptions = [
      this.item,
      sidecar.onDidChangeState((state) => this.onState(state)),
      sidecar.onIndexing((event) => {
        if (event.kind === "end") {
          this.indexing = false;
          this.item.tooltip = `Deja: indexed Continue's sessions (${event.message ?? "done"}). Click to search them.`;
          void this.count();
        } else {
          this.indexing = true;
          this.item.text = indexingText(event.message, event.percentage);
          this.item.tooltip = "Deja is indexing Continue's sessions. Click to search what is indexed so far.";
          this.item.command = Commands.search;
          this.item.backgroundColor = undefined;
        }
      }),
      sidecar.onIndexChanged(() => this.countSoon()),
      sidecar.onStoreStatus((status) => {
        this.storeProblem = storeProblemLook(status);
        void this.count();
      }),
    ];
  }

  private onState(state: string): void {
    if (state === "starting") {
      this.storeProblem = undefined; // a new server says it again
      this.item.text = "$(sync~spin) Deja";
      this.item.tooltip = "Deja: starting its server";
      this.item.command = Commands.showOutput;
      this.item.backgroundColor = undefined;
    } else if (state === "failed" || state === "stopped") {
      this.item.text = this.sidecar.failureStatus ?? "$(error) Deja";
      this.item.tooltip = `${this.sidecar.failure ?? "Deja's server is not running."} Click for what to do.`;
      this.item.command = Commands.showServerProblem;
      this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    } else if (state === "running") {
      this.item.command = Commands.search;
      this.item.backgroundColor = undefined;
      // The first pass's progress may be on its way; show what is indexed meanwhile.
      void this.count();
    }
  }

  private countSoon(): void {
    if (this.countTimer === undefined) {
      this.countTimer = setTimeout(() => {
        this.countTimer = undefined;
        void this.count();
      }, 500);
    }
  }

  private async count(): Promise<void> {
    if (this.sidecar.state !== "running") {
      return;
    }
    try {
      const result = await this.sidecar.request<SessionsResult>(Methods.sessions, { limit: COUNT_LIMIT });
      if (this.indexing || this.sidecar.state !== "running") {
        return;
      }
      if (this.storeProblem !== undefined) {
        // Before the count: sessions that look stale need their reason in sight.
        this.item.text = this.storeProblem.text;
        this.item.tooltip = this.storeProblem.tooltip;
        this.item.command = Commands.showOutput;
        this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
        return;
      }
      this.item.command = Commands.search;
      this.item.backgroundColor = undefined;
      const count = result.sessions.length;
      this.item.text = sessionsText(count, count >= COUNT_LIMIT);
      this.item.tooltip = `Deja: ${count}${count >= COUNT_LIMIT ? "+" : ""} Continue sessions in ${result.scope}. Click to search them (Deja: Search History).`;
    } catch (error) {
      this.sidecar.warn(`status: ${errorText(error)}`);
    }
  }

  dispose(): void {
    if (this.countTimer !== undefined) {
      clearTimeout(this.countTimer);
    }
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
