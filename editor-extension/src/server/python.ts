/** The interpreter the Python extension (ms-python.python) has selected, through its public API. */

import * as vscode from "vscode";

interface EnvironmentPath {
  id?: string;
  path?: string;
}

interface ResolvedEnvironment {
  executable?: { uri?: vscode.Uri };
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): EnvironmentPath | undefined;
    resolveEnvironment?(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

export const PYTHON_EXTENSION_ID = "ms-python.python";

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    Promise.resolve(promise),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms)),
  ]);
}

async function api(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  if (extension.isActive) {
    return extension.exports;
  }
  return withTimeout(extension.activate(), 10_000);
}

/** The selected interpreter as an argv prefix, or undefined (extension absent, nothing selected). */
export async function selectedInterpreter(log: (line: string) => void): Promise<string[] | undefined> {
  try {
    const python = await api();
    if (python === undefined) {
      log(`${PYTHON_EXTENSION_ID} is not installed`);
      return undefined;
    }
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const environments = python.environments;
    if (environments?.getActiveEnvironmentPath !== undefined) {
      const active = environments.getActiveEnvironmentPath(resource);
      if (active !== undefined) {
        const resolved = environments.resolveEnvironment !== undefined ? await withTimeout(environments.resolveEnvironment(active), 10_000) : undefined;
        const executable = resolved?.executable?.uri?.fsPath ?? active.path;
        if (executable) {
          return [executable];
        }
      }
    }
    const command = python.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (command !== undefined && command.length > 0) {
      return command;
    }
  } catch (error) {
    log(`the Python extension did not give an interpreter: ${String(error)}`);
  }
  return undefined;
}

/** Calls `listener` when the user selects another interpreter. */
export function onInterpreterChange(listener: () => void): vscode.Disposable | undefined {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined || !extension.isActive) {
    return undefined;
  }
  const event = extension.exports.environments?.onDidChangeActiveEnvironmentPath;
  return event !== undefined ? event(() => listener()) : undefined;
}
