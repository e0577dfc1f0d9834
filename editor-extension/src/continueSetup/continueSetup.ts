/** "Deja: Connect to Continue" / "Disconnect from Continue": `deja install continue` /
 * `deja uninstall continue` run as the server runs, the MCP entry pointing at the same Python with
 * the bundled libraries. The MCP server also needs the `mcp` package (not bundled: pydantic-core
 * is native): when the Python lacks it, the user is offered an install into the extension's own
 * storage (`pip install --target`), never into the Python itself. */

import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import * as vscode from "vscode";
import { launchOrProblem, runProgram, type RunResult } from "../server/dejaRun";
import { dejaArgv } from "../server/interpreter";
import { commandLine, type Launch } from "../server/launch";
import type { Sidecar } from "../server/sidecar";

const MCP_REQUIREMENT = "mcp>=2,<3";

interface InstallEnvelope {
  root?: string;
  changes?: { path: string; what: string }[];
  kept?: string[];
  error?: { message?: string };
}

function envelope(result: RunResult): InstallEnvelope | undefined {
  try {
    return JSON.parse(result.stdout) as InstallEnvelope;
  } catch {
    return undefined;
  }
}

function failureText(what: string, result: RunResult): string {
  const message = envelope(result)?.error?.message;
  const tail = result.stderr.trim().split("\n").slice(-3).join(" ");
  const why = message ?? result.spawnError ?? (tail !== "" ? tail : `exit code ${String(result.exitCode)}`);
  return `Deja: ${what} failed: ${why}`;
}

export class ContinueSetup {
  constructor(
    private readonly sidecar: Sidecar,
    /** The extension's global storage: `mcp` is installed under it, one folder per Python version. */
    private readonly storage: string,
  ) {}

  private log(line: string): void {
    this.sidecar.log(line);
  }

  private mcpFolder(launch: Launch): string {
    return join(this.storage, `mcp-python${launch.version ?? "3"}`);
  }

  private pythonPathWithMcp(launch: Launch): string | undefined {
    const folder = this.mcpFolder(launch);
    const parts = [launch.pythonPath, existsSync(folder) ? folder : undefined].filter((part): part is string => part !== undefined && part !== "");
    return parts.length > 0 ? parts.join(delimiter) : undefined;
  }

  /** Whether `mcp` imports for this launch; when not, offers to install it. */
  private async ensureMcp(launch: Launch): Promise<boolean> {
    const interpreter = launch.interpreter;
    if (interpreter === undefined) {
      return true; // deja.server.command: the user's own Deja brings its dependencies
    }
    const probe = await runProgram([...interpreter, "-c", "import mcp"], this.pythonPathWithMcp(launch), (line) => this.log(line), 30_000);
    if (probe.exitCode === 0) {
      return true;
    }
    const folder = this.mcpFolder(launch);
    const choice = await vscode.window.showWarningMessage(
      `Deja's MCP server (what Continue starts) needs the Python package \`mcp\`, which the extension does not bundle (it has native parts). Install ${MCP_REQUIREMENT} for ${commandLine(interpreter)} into ${folder}? (It runs \`pip install --target\`; nothing is installed into that Python.)`,
      "Install mcp",
      "Cancel",
    );
    if (choice !== "Install mcp") {
      this.log("Connect to Continue: cancelled (mcp is not installed)");
      return false;
    }
    const argv = [...interpreter, "-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--target", folder, MCP_REQUIREMENT];
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Deja: installing ${MCP_REQUIREMENT}…` }, () => runProgram(argv, undefined, (line) => this.log(line), 600_000));
    if (result.exitCode !== 0) {
      const noPip = /No module named pip/.test(result.stderr);
      this.sidecar.warn(result.stderr);
      void vscode.window.showErrorMessage(
        noPip
          ? `Deja: ${commandLine(interpreter)} has no pip. Install pip (Debian/Ubuntu: \`sudo apt install python3-pip\`), or install Deja with its MCP server: \`pipx install deja-<version>-py3-none-any.whl\`, then set \`deja.server.command\`.`
          : `Deja: installing ${MCP_REQUIREMENT} failed (see Deja: Show Log): ${result.stderr.trim().split("\n").slice(-1).join("")}`,
      );
      return false;
    }
    return true;
  }

  private launch(): Launch | undefined {
    const launch = launchOrProblem(this.sidecar.launch, this.sidecar.failure);
    if (typeof launch === "string") {
      void vscode.window.showErrorMessage(launch);
      return undefined;
    }
    return launch;
  }

  async connect(): Promise<void> {
    const launch = this.launch();
    if (launch === undefined || !(await this.ensureMcp(launch))) {
      return;
    }
    const pythonPath = this.pythonPathWithMcp(launch);
    const args = ["install", "continue", "--json", ...(launch.interpreter !== undefined && pythonPath !== undefined ? ["--mcp-pythonpath", pythonPath] : [])];
    await this.run(launch, args, "Connect to Continue", pythonPath, (result) => {
      const changes = result.changes ?? [];
      const what = changes.length > 0 ? changes.map((change) => change.what).join(", ") : "it was already connected";
      return `Deja is connected to Continue at ${result.root ?? "?"} (${what}). Restart Continue (or cn) to load it; "Deja: Disconnect from Continue" undoes it.${(result.kept ?? []).map((note) => ` ${note}.`).join("")}`;
    });
  }

  async disconnect(): Promise<void> {
    const launch = this.launch();
    if (launch === undefined) {
      return;
    }
    await this.run(launch, ["uninstall", "continue", "--json"], "Disconnect from Continue", launch.pythonPath, (result) => {
      const changes = result.changes ?? [];
      return changes.length > 0 ? `Deja is disconnected from Continue at ${result.root ?? "?"}: what Connect added is removed.` : `Deja was not connected to Continue at ${result.root ?? "?"}; nothing to remove.`;
    });
  }

  private async run(launch: Launch, args: string[], what: string, pythonPath: string | undefined, done: (result: InstallEnvelope) => string): Promise<void> {
    const argv = dejaArgv(launch, args);
    if (argv === undefined) {
      void vscode.window.showErrorMessage(`Deja: cannot tell how to run \`deja ${args[0]}\` from deja.server.command (${commandLine(launch.argv)}): it should end with \`serve\`.`);
      return;
    }
    const result = await runProgram(argv, pythonPath, (line) => this.log(line));
    const parsed = envelope(result);
    if (result.exitCode !== 0 || parsed === undefined || parsed.error !== undefined) {
      void vscode.window.showErrorMessage(failureText(what, result));
      return;
    }
    void vscode.window.showInformationMessage(done(parsed));
  }
}
