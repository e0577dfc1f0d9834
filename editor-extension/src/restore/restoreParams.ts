/** Restore Context (`deja/restore`): the pure parts — params, the document's address, what Copy copies. */

import type { RestoreResult, Scope } from "../shared/protocol";

export const RESTORE_SCHEME = "deja-restore";
export const RESTORE_PLACEHOLDER = "empty: list sessions · 1,3 · 1-4 · last · 1,3 : topic";

/** The request's params: the selection as typed (trimmed; empty asks for the listing) and the scope. */
export function restoreParams(input: string, scope: Scope): { selection: string; scope: Scope } {
  return { selection: input.trim(), scope };
}

/** The document's path, e.g. `/Restored context (last).txt`, or `/Sessions to restore.txt` for the
 * listing: plain text, so the document holds exactly what `deja restore` prints. */
export function restorePath(result: Pick<RestoreResult, "restored">, selection: string): string {
  if (result.restored.length === 0) {
    return "/Sessions to restore.txt";
  }
  const shown = selection.replace(/[/\\]/g, " ").replace(/\s+/g, " ").trim().slice(0, 40);
  return `/Restored context (${shown}).txt`;
}

/** The inside of a markdown code fence (the listing comes as one ```text block); other markdown as is. */
export function unfence(markdown: string): string {
  const lines = markdown.replace(/\r\n/g, "\n").replace(/\n+$/, "").split("\n");
  if (lines.length >= 2 && /^```\w*$/.test(lines[0]) && lines[lines.length - 1] === "```") {
    return lines.slice(1, -1).join("\n") + "\n";
  }
  return markdown;
}

/** What the document shows and Copy copies (the same bytes): the plain transcript as `deja restore`
 * prints it, else the listing (or the server's message). */
export function copyTextOf(result: Pick<RestoreResult, "text" | "markdown" | "message">): { text: string; what: string } {
  if (result.text !== "") {
    return { text: result.text, what: "the restored context" };
  }
  const listing = unfence(result.markdown);
  return { text: listing !== "" ? listing : result.message, what: "the session listing" };
}
