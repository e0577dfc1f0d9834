/** The first pass's work-done progress (`deja/indexing`), taken from the client library. */

import type * as vscode from "vscode";
import {
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type ClientCapabilities,
  type FeatureState,
  type LanguageClient,
  type StaticFeature,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { IndexingToken } from "../shared/protocol";

export type IndexingEvent =
  | { kind: "begin" | "report"; message?: string; percentage?: number }
  | { kind: "end"; message?: string };

/** Takes over `window/workDoneProgress/create` for the server's indexing token: the status bar
 * shows it (the library's own window progress would say the same thing twice). */
export class IndexingProgressFeature implements StaticFeature {
  private subscription: vscode.Disposable | undefined;

  constructor(
    private readonly client: LanguageClient,
    private readonly report: (event: IndexingEvent) => void,
  ) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...(capabilities.window ?? {}), workDoneProgress: true };
  }

  initialize(): void {
    // Registered after the library's progress feature, so this handler replaces its one.
    this.client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      if (params.token !== IndexingToken) {
        return;
      }
      this.subscription?.dispose();
      this.subscription = this.client.onProgress(
        WorkDoneProgress.type,
        params.token,
        (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
          if (value.kind === "end") {
            this.report({ kind: "end", message: value.message });
            this.subscription?.dispose();
            this.subscription = undefined;
          } else {
            this.report({ kind: value.kind, message: value.message, percentage: value.percentage });
          }
        },
      );
    });
  }

  getState(): FeatureState {
    return { kind: "static" };
  }

  clear(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
  }
}
