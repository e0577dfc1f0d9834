/** What Fixed This Before?: the text sent to `deja/fix` (a selection or a failed terminal
 * command's output) and the quiet status bar hint shown when that error was fixed before. */

import type { FixResult, PastFailure } from "../shared/protocol";

/** The end of a long output says what failed; the server reads no more than this either. */
export const MAX_ERROR_CHARS = 64_000;
export const FIX_SCHEME = "deja-fix";

/** Terminal output as text: escape sequences (colours, VS Code's OSC 633 marks), carriage
 * returns and backspaces gone; its last `MAX_ERROR_CHARS` characters. */
export function terminalText(raw: string): string {
  /* eslint-disable no-control-regex -- control characters are what is removed */
  const text = raw
    // OSC … BEL or ST, then CSI and other two-character escapes
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "")
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b[@-Z\\-_]/g, "")
    .replace(/[^\n]*\r(?!\n)/g, "")
    .replace(/\r/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f]/g, "");
  /* eslint-enable no-control-regex */
  return text.slice(-MAX_ERROR_CHARS);
}

/** The best past failure that was fixed, if any: the one the hint offers. */
export function fixedBefore(result: FixResult): PastFailure | undefined {
  return result.failures.find((failure) => failure.fixed);
}

export interface FixHint {
  text: string;
  tooltip: string;
}

/** The status bar hint for a failed terminal command whose error was fixed before. */
export function fixHint(result: FixResult, commandLine: string): FixHint | undefined {
  const fixed = fixedBefore(result);
  if (fixed === undefined) {
    return undefined;
  }
  const command = commandLine.length > 60 ? `${commandLine.slice(0, 59)}…` : commandLine;
  const how = fixed.confirmed ? "fixed" : "probably fixed";
  return {
    text: "$(history) Fixed before",
    tooltip: `Deja: the error of \`${command}\` was ${how} before, in “${fixed.title || "Untitled"}” (${fixed.project || "no project"}). Click to see what fixed it.`,
  };
}

/** The answer document's name. */
export function fixDocumentPath(source: "selection" | "terminal", counter: number): string {
  return `/What fixed this before (${source}) ${String(counter)}.md`;
}
