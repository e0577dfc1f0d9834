/** Recover into Continue, Kept by Deja and Export: the result types of `deja/recover`,
 * `deja/lostSessions` and `deja/export`, and the words shown; no `vscode` import. */

import type { SessionSummary } from "../shared/protocol";

/** `deja/recover`: a session written back into Continue's store as a new session. */
export interface RecoverResult {
  session: string;
  new_id: string;
  written: boolean;
  file: string;
  list_file: string;
  /** The `sessions.json` entry added. */
  entry: { sessionId: string; title: string; dateCreated: string; workspaceDirectory: string; messageCount: number };
  title: string;
  turns: number;
  only_deja: number;
  fork: { line: string; argv: string[]; cwd: string | null };
  redacted: boolean;
  /** With `dryRun`: the session file that would be written (Continue's `Session`). */
  document?: { sessionId: string; title: string; workspaceDirectory: string; history: unknown[] };
}

/** `deja/lostSessions`: sessions whose file is gone or was compacted ("Kept by Deja"). */
export interface LostSession extends SessionSummary {
  lost: "deleted" | "compacted";
  only_deja: number;
  /** The session an earlier Recover into Continue wrote for it, once indexed. */
  recovered_as: string | null;
}

export interface LostSessionsResult {
  scope: string;
  sessions: LostSession[];
}

/** `deja/export`: a session as Markdown, JSON or one self-contained HTML page. */
export type ExportFormat = "md" | "html" | "json";

export interface ExportResult {
  session: string;
  format: ExportFormat;
  text: string;
  name: string;
}

/** Whether Continue's file no longer holds all of a session: "Recover into Continue" applies. */
export function notWholeInContinue(session: SessionSummary): boolean {
  return session.deleted || session.kept_turns > 0;
}

export function recoveredMessage(result: RecoverResult): string {
  const held = result.only_deja === 1 ? "1 turn only Deja held" : `${result.only_deja} turns only Deja held`;
  return (
    `Deja: recovered into Continue as a new session, “${result.title}” (${result.turns} turns, ${held}; ` +
    `secrets redacted). Continue's history lists it; in a terminal: ${result.fork.line}`
  );
}

/** Whether a recover error is one a copy gets past (Continue holds it whole, or it was
 * recovered already): then Recover a Copy is offered instead of an error. */
export function copyWouldHelp(message: string): boolean {
  return message.includes("nothing to recover: Continue still holds") || message.includes("already recovered:");
}

export function keptByDejaLabel(count: number): string {
  return count === 0 ? "Kept by Deja" : `Kept by Deja (${count})`;
}

export function lostDescription(session: LostSession): string {
  const why = session.lost === "deleted" ? "file gone" : "compacted";
  const recovered = session.recovered_as !== null ? " · recovered" : "";
  return `${why} · ${session.only_deja} turn${session.only_deja === 1 ? "" : "s"} only in Deja${recovered}`;
}
