/** Runs `deja …` (or any program) the way the server runs: the same interpreter, the bundled
 * libraries on PYTHONPATH, Continue's folder from `deja.continueRoot`. Never through a shell. */

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { commandLine, type Launch } from "./launch";
import { continueRoot } from "./settings";

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** `ENOENT` etc. when the program could not be started. */
  spawnError?: string;
}

export function runProgram(argv: string[], pythonPath: string | undefined, log: (line: string) => void, timeoutMs = 120_000): Promise<RunResult> {
  const root = continueRoot();
  const env = {
    ...process.env,
    ...(pythonPath !== undefined ? { PYTHONPATH: pythonPath } : {}),
    ...(root !== undefined ? { DEJA_CONTINUE_ROOT: root } : {}),
  };
  const cwd = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === "file")?.uri.fsPath;
  log(`running: ${pythonPath !== undefined ? `PYTHONPATH=${commandLine([pythonPath])} ` : ""}${commandLine(argv)}`);
  return new Promise((resolve) => {
    execFile(argv[0], argv.slice(1), { env, cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true, encoding: "utf8" }, (error, stdout, stderr) => {
      const failure = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
      const spawnError = typeof failure?.code === "string" ? failure.code : undefined;
      const exitCode = failure === null ? 0 : typeof failure.code === "number" ? failure.code : null;
      log(`  → exit ${String(exitCode)}${spawnError !== undefined ? ` (${spawnError})` : ""}`);
      resolve({ exitCode, stdout, stderr, spawnError });
    });
  });
}

/** The launch the server uses, or a message saying why there is none. */
export function launchOrProblem(launch: Launch | undefined, failure: string | undefined): Launch | string {
  return launch ?? failure ?? "Deja's server has not started yet: try again in a moment (Deja: Show Log says what it does).";
}
