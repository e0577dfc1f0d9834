/** The status bar while Deja's server does not apply Continue's store (missing, unreadable, or
 * emptied under an index): a warning saying why, and that nothing indexed was lost. Pure. */

import type { StoreProblem, StoreStatus } from "../shared/protocol";

const SHORT: Record<StoreProblem, string> = {
  missing: "store missing",
  unreadable: "store unreadable",
  empty: "store empty",
};

export interface StatusLook {
  text: string;
  tooltip: string;
}

/** The status bar's text and tooltip for a refused store; `undefined` when it is applied. */
export function storeProblemLook(status: StoreStatus): StatusLook | undefined {
  if (status.ok || status.problem === null) {
    return undefined;
  }
  return {
    text: `$(warning) Deja: ${SHORT[status.problem]}`,
    tooltip: `Deja: ${status.message ?? "Continue's store is not applied"}. Searches and answers come from what was indexed before. Click for the log.`,
  };
}

/** `deja/storeStatus` params as the server sends them, else `undefined`. */
export function parseStoreStatus(params: unknown): StoreStatus | undefined {
  if (typeof params !== "object" || params === null) {
    return undefined;
  }
  const { ok, problem, message } = params as Record<string, unknown>;
  if (ok === true) {
    return { ok: true, problem: null, message: null };
  }
  if (ok !== false || typeof message !== "string" || typeof problem !== "string" || !Object.hasOwn(SHORT, problem)) {
    return undefined;
  }
  return { ok: false, problem: problem as StoreProblem, message };
}
