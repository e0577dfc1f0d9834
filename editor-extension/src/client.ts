/** The language client the sidecar talks through: quiet (Deja shows its own notifications), with
 * the indexing progress and the server's notifications routed to the sidecar's events. */

import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { IndexingProgressFeature, type IndexingEvent } from "./indexingProgress";
import { Methods, type StoreStatus } from "./pure/protocol";
import { parseStoreStatus } from "./pure/storeStatus";

/** The client library shows notifications for its own errors; Deja shows one of its own instead. */
class QuietClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
  override warn(message: string, data?: unknown): void {
    super.warn(message, data, false);
  }
  override info(message: string, data?: unknown): void {
    super.info(message, data, false);
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

export function createClient(server: ServerOptions, options: LanguageClientOptions, events: ServerEvents): LanguageClient {
  const client = new QuietClient("deja", "Deja", server, options);
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
