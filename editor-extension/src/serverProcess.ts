/** The `deja serve` child process of one start, and what it left behind when the start failed. */

import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import type { Launch, StartFailure } from "./pure/launch";

const STDERR_TAIL = 8192;

export class ServerProcess {
  private child: ChildProcess | undefined;
  private stderr = "";
  private spawnError: string | undefined;
  private exitCode: number | null | undefined;

  constructor(
    private readonly launch: Launch,
    private readonly log: (line: string) => void,
    /** Whether this start is still the sidecar's current one (a stale exit is not logged). */
    private readonly isCurrent: () => boolean,
  ) {}

  /** The language client's server options: runs the command in the first `file:` workspace folder. */
  spawn(): Promise<ChildProcess> {
    const argv = this.launch.argv;
    return new Promise((resolve, reject) => {
      const cwd = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === "file")?.uri.fsPath;
      const child = spawn(argv[0], argv.slice(1), {
        cwd,
        env: { ...process.env, ...(this.launch.pythonPath !== undefined ? { PYTHONPATH: this.launch.pythonPath } : {}), PYTHONUNBUFFERED: "1" },
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        this.spawnError = error.code ?? error.message;
        this.log(`cannot run ${argv[0]}: ${error.message}`);
        reject(error);
      });
      child.once("spawn", () => {
        this.child = child;
        resolve(child);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      child.once("exit", (code, signal) => {
        this.exitCode = code;
        if (this.isCurrent()) {
          this.log(`the server exited (${signal !== null ? `signal ${signal}` : `code ${String(code)}`})`);
        }
      });
    });
  }

  /** What a failed start left behind, for `diagnose`. */
  get failure(): StartFailure {
    return { spawnError: this.spawnError, exitCode: this.exitCode, stderr: this.stderr };
  }

  /** Ends the process when stopping the client did not. */
  kill(): void {
    const child = this.child;
    if (child !== undefined && child.exitCode === null && !child.killed) {
      child.kill();
    }
  }
}
