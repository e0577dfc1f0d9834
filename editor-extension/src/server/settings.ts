/** Every `deja.*` setting, typed, with the defaults package.json declares: the one place that
 * reads them. */

import * as vscode from "vscode";
import type { ImportStrategy } from "./interpreter";
import type { LaunchSettings } from "./launch";
import type { Scope } from "../shared/protocol";

const SECTION = "deja";

function config(resource?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, resource);
}

/** `deja.server.command` and `deja.server.python` as written: `settingProblems` checks them. */
export function launchSettings(): LaunchSettings {
  const deja = config();
  return { command: deja.get<unknown>("server.command"), python: deja.get<unknown>("server.python") };
}

/** `deja.server.importStrategy`: the bundled server (default) or the interpreter's own Deja. */
export function importStrategy(): ImportStrategy {
  return config().get<string>("server.importStrategy") === "fromEnvironment" ? "fromEnvironment" : "useBundled";
}

/** `deja.scope` when it holds one of its values. */
export function configuredScope(): Scope | undefined {
  const scope = config().get<string>("scope");
  return scope === "workspace" || scope === "all" ? scope : undefined;
}

/** The scope searches and restores start in: `all` only when `deja.scope` says so. */
export function defaultScope(): Scope {
  return configuredScope() === "all" ? "all" : "workspace";
}

/** `deja.continueRoot`, trimmed; undefined when empty (the server then picks Continue's folder). */
export function continueRoot(): string | undefined {
  const root = config().get<string>("continueRoot")?.trim();
  return root ? root : undefined;
}

export function hoverEnabled(resource: vscode.Uri): boolean {
  return config(resource).get<boolean>("hover.enabled", true);
}

export function codeLensEnabled(resource: vscode.Uri): boolean {
  return config(resource).get<boolean>("codeLens.enabled", true);
}

/** `deja.terminal.fixHints`: offer past fixes for failed terminal commands in the status bar. */
export function terminalFixHints(): boolean {
  return config().get<boolean>("terminal.fixHints", true);
}

/** Settings that change how the server starts or what it is told: a change restarts it. */
export function affectsServer(event: vscode.ConfigurationChangeEvent): boolean {
  return ["deja.server", "deja.scope", "deja.continueRoot"].some((section) => event.affectsConfiguration(section));
}

export function affectsScope(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration("deja.scope");
}

export function affectsCodeLens(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration("deja.codeLens.enabled");
}
