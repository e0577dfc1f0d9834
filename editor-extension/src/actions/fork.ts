/** Where and how Fork Session Here runs `cn --fork <id>`. Pure. */

import { commandLine, powershellQuote } from "../server/launch";
import type { ForkCommandResult } from "../shared/protocol";

export interface ForkPlan {
  cwd: string | undefined;
  /** What to tell about the folder when it is not the session's own. */
  cwdNote: string | undefined;
  line: string;
  terminalName: string;
  message: string;
}

export const CN_INSTALL = "npm i -g @continuedev/cli";

export function forkPlan(
  fork: ForkCommandResult,
  title: string,
  currentFolder: string | undefined,
  platform: string = process.platform,
): ForkPlan {
  const argv = [fork.command, ...fork.args];
  const line = platform === "win32" ? argv.map(powershellQuote).join(" ") : commandLine(argv);
  const short = title.length > 40 ? `${title.slice(0, 39)}…` : title;
  let cwd: string | undefined = fork.cwd ?? undefined;
  let cwdNote: string | undefined;
  if (fork.cwd === null) {
    cwd = currentFolder;
    cwdNote =
      currentFolder !== undefined
        ? `The session's folder is not on this machine: the fork runs in the current folder, ${currentFolder}.`
        : "The session's folder is not on this machine and no folder is open: the fork runs in the terminal's default folder.";
  }
  const message =
    `Forking “${short}” in a terminal: \`${line}\` starts a new Continue session that carries this session's history; the original session is left as it is.` +
    (cwdNote !== undefined ? ` ${cwdNote}` : "");
  return { cwd, cwdNote, line, terminalName: `Fork: ${short}`, message };
}
