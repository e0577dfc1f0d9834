/** The environment the Python Environments extension (ms-python.vscode-python-envs) has chosen for
 * the workspace, through its exported API (`getEnvironment`). */

import * as vscode from "vscode";

interface PythonEnvironment {
  execInfo?: { run?: { executable?: string; args?: string[] } };
  environmentPath?: vscode.Uri;
}

interface PythonEnvironmentsApi {
  getEnvironment?(scope: vscode.Uri | undefined): Promise<PythonEnvironment | undefined>;
  onDidChangeEnvironment?: vscode.Event<unknown>;
}

export const PYTHON_ENVS_EXTENSION_ID = "ms-python.vscode-python-envs";

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return Promise.race([Promise.resolve(promise), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}

/** The chosen environment's interpreter as an argv prefix, or undefined (extension absent, none chosen). */
export async function environmentsInterpreter(log: (line: string) => void): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>(PYTHON_ENVS_EXTENSION_ID);
  if (extension === undefined) {
    log(`${PYTHON_ENVS_EXTENSION_ID} is not installed`);
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await withTimeout(extension.activate(), 10_000);
    const environment = await withTimeout(api?.getEnvironment?.(vscode.workspace.workspaceFolders?.[0]?.uri) ?? Promise.resolve(undefined), 10_000);
    const run = environment?.execInfo?.run;
    if (run?.executable !== undefined && run.executable !== "") {
      return [run.executable, ...(run.args ?? [])];
    }
    log(`${PYTHON_ENVS_EXTENSION_ID} has no environment for this workspace`);
  } catch (error) {
    log(`${PYTHON_ENVS_EXTENSION_ID} did not give an environment: ${String(error)}`);
  }
  return undefined;
}

/** Calls `listener` when the user chooses another environment. */
export function onEnvironmentChange(listener: () => void): vscode.Disposable | undefined {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>(PYTHON_ENVS_EXTENSION_ID);
  if (extension === undefined || !extension.isActive) {
    return undefined;
  }
  const event = extension.exports.onDidChangeEnvironment;
  return event !== undefined ? event(() => listener()) : undefined;
}
