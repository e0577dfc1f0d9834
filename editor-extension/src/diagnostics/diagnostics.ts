/** "Deja: Show Diagnostics": `deja doctor --json` run as the server runs, shown as a markdown
 * document (problems first, each with its fix). */

import * as vscode from "vscode";
import { launchOrProblem, runProgram } from "../server/dejaRun";
import { parseDoctor, renderDoctor } from "./doctor";
import { dejaArgv } from "../server/interpreter";
import { commandLine } from "../server/launch";
import type { Sidecar } from "../server/sidecar";

export async function showDiagnostics(sidecar: Sidecar): Promise<void> {
  const launch = launchOrProblem(sidecar.launch, sidecar.failure);
  if (typeof launch === "string") {
    void vscode.window.showErrorMessage(launch);
    return;
  }
  const argv = dejaArgv(launch, ["doctor", "--json"]);
  if (argv === undefined) {
    void vscode.window.showErrorMessage(`Deja: cannot tell how to run \`deja doctor\` from deja.server.command (${commandLine(launch.argv)}): it should end with \`serve\`.`);
    return;
  }
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "Deja: running deja doctor…" }, () =>
    runProgram(argv, launch.pythonPath, (line) => sidecar.log(line)),
  );
  const report = result.spawnError !== undefined ? { problem: `${argv[0]} could not be started (${result.spawnError})` } : parseDoctor(result.stdout);
  const content = renderDoctor(report, { commandLine: commandLine(argv), exitCode: result.exitCode, stderr: result.stderr });
  const document = await vscode.workspace.openTextDocument({ content, language: "markdown" });
  await vscode.window.showTextDocument(document, { preview: false });
  await vscode.commands.executeCommand("markdown.showPreview", document.uri).then(undefined, () => undefined);
}
