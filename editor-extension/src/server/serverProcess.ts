/** The `deja serve` child process of one start, and what it left behind when the start failed. */

import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import type { StreamInfo } from "vscode-languageclient/node";
import type { Launch, StartFailure } from "./launch";
import { LineSplitter } from "./lines";

const STDERR_TAIL = 8192;

/** Where the process's story goes: Deja's log channel. */
export type Log = Pick<vscode.LogOutputChannel, "info" | "warn" | "error">;

export class ServerProcess {
  private child: ChildProcess | undefined;
  private stderr = "";
  private spawnError: string | undefined;
  private exitCode: number | null | undefined;

  constructor(
    private readonly launch: Launch,
    private readonly log: Log,
    /** Whether this start is still the sidecar's current one (a stale exit is not logged). */
    private readonly isCurrent: () => boolean,
  ) {}

  /** The language client's server options: runs the command in the first `file:` workspace folder.
   * Its streams, not the process: the client would append stderr to the log channel as it comes,
   * a chunk at a time at info level; each stderr line is logged here as a warning instead. */
  spawn(): Promise<StreamInfo> {
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
        this.log.error(`cannot run ${argv[0]}: ${error.message}`);
        reject(error);
      });
      child.once("spawn", () => {
        this.child = child;
        resolve({ reader: child.stdout, writer: child.stdin, detached: false });
      });
      const lines = new LineSplitter();
      child.stderr.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        this.stderr = (this.stderr + text).slice(-STDERR_TAIL);
        lines.push(text).forEach((line) => this.log.warn(`server: ${line}`));
      });
      child.once("exit", (code, signal) => {
        this.exitCode = code;
        const rest = lines.end();
        if (rest !== undefined) {
          this.log.warn(`server: ${rest}`);
        }
        if (this.isCurrent()) {
          const how = signal !== null ? `signal ${signal}` : `code ${String(code)}`;
          if (code === 0) {
            this.log.info(`the server exited (${how})`);
          } else {
            this.log.warn(`the server exited (${how})`);
          }
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
