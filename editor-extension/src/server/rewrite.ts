/** The sidecar's hover links and code lenses name the server's commands (`deja.*`); in VS Code the
 * extension answers them with richer UI (`deja.vscode.*`). Pure. */

import { Commands, ServerCommands } from "../shared/protocol";

const LINK_TARGETS: Record<string, string> = {
  [ServerCommands.showSession]: Commands.openSession,
  [ServerCommands.forkSession]: Commands.forkSession,
  [ServerCommands.showFileHistory]: Commands.showPastEdits,
};

/** Commands a hover's markdown may run: the server's (protocol.md) and the extension's. */
export const TRUSTED_COMMANDS: string[] = [
  ServerCommands.showSession,
  ServerCommands.forkSession,
  ServerCommands.showFileHistory,
  Commands.openSession,
  Commands.forkSession,
  Commands.showPastEdits,
];

/** `command:deja.showSession?…` → `command:deja.vscode.openSession?…` (arguments unchanged). */
export function rewriteHoverLinks(markdown: string): string {
  return markdown.replace(/\]\(command:(deja\.[A-Za-z]+)([?)])/g, (whole, command: string, after: string) => {
    const target = LINK_TARGETS[command];
    return target === undefined ? whole : `](command:${target}${after}`;
  });
}

export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

/** The extension's command for a server code lens command (the same arguments). */
export function rewriteLensCommand(command: LensCommand): LensCommand {
  const target = LINK_TARGETS[command.command];
  return target === undefined ? command : { ...command, command: target };
}
