/** The language client the sidecar talks through: quiet (Deja shows its own notifications), its
 * log lines in Deja's log channel at their level, with the indexing progress and the server's
 * notifications routed to the sidecar's events. */

import type * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { IndexingProgressFeature, type IndexingEvent } from "./indexingProgress";
import { logText } from "./logText";
import { Methods, type StoreStatus } from "../shared/protocol";
import { parseStoreStatus } from "./storeStatus";

/** The client library stamps its lines with a local time of its own (`[Info  - 3:04:05 PM]`)
 * inside the channel's own timestamp, and shows notifications for its errors: its messages
 * (the server's `window/logMessage` too) go to the log channel at their level instead, and Deja
 * shows one notification of its own. */
class QuietClient extends LanguageClient {
  constructor(
    server: ServerOptions,
    options: LanguageClientOptions,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super("deja", "Deja", server, options);
  }
  override error(message: string, data?: unknown): void {
    this.log.error(logText(message, data));
  }
  override warn(message: string, data?: unknown): void {
    this.log.warn(logText(message, data));
  }
  override info(message: string, data?: unknown): void {
    this.log.info(logText(message, data));
  }
  override debug(message: string, data?: unknown): void {
    this.log.debug(logText(message, data));
  }
}

/** What the server tells the extension without being asked. */
export interface ServerEvents {
  indexing(event: IndexingEvent): void;
  /** `deja/indexChanged`: the ids of the sessions added, re-read or deleted. */
  indexChanged(ids: string[]): void;
  /** `deja/storeStatus`, when it parses. */
  storeStatus(status: StoreStatus): void;
}

export function createClient(server: ServerOptions, options: LanguageClientOptions, log: vscode.LogOutputChannel, events: ServerEvents): LanguageClient {
  const client = new QuietClient(server, options, log);
  client.registerFeature(new IndexingProgressFeature(client, (event) => events.indexing(event)));
  client.onNotification(Methods.indexChanged, (params: { sessions?: unknown }) => {
    const ids = Array.isArray(params?.sessions) ? params.sessions.filter((id): id is string => typeof id === "string") : [];
    events.indexChanged(ids);
  });
  client.onNotification(Methods.storeStatus, (params: unknown) => {
    const status = parseStoreStatus(params);
    if (status !== undefined) {
      events.storeStatus(status);
    }
  });
  return client;
}
