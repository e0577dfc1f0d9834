/** Which command starts the sidecar, how to print it, and what to tell the user when it fails.
 * Pure: no `vscode` import, unit-tested with node's test runner. */

export type LaunchSource = "deja.server.command" | "deja.server.python" | "Python Environments extension" | "Python extension" | "PATH";

export interface Launch {
  argv: string[];
  source: LaunchSource;
  /** The Python interpreter, when the command is `<python> -m deja serve`. */
  python?: string;
  /** PYTHONPATH for the server (the bundled libraries first), when it runs the bundled server. */
  pythonPath?: string;
  /** The interpreter as an argv prefix and its `major.minor`, when a Python runs `-m deja`. */
  interpreter?: string[];
  version?: string;
  /** The interpreter's absolute path, as it answered the version probe. */
  executable?: string;
}

export interface LaunchSettings {
  command?: unknown;
  python?: unknown;
}

export const SERVE_ARGS = ["-m", "deja", "serve"];

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Problems with the settings themselves, reported in the output channel. */
export function settingProblems(settings: LaunchSettings): string[] {
  const problems: string[] = [];
  const { command, python } = settings;
  if (command !== undefined && command !== null) {
    if (!isStringArray(command)) {
      problems.push("deja.server.command must be an array of strings (an argv); it is ignored");
    } else if (command.length > 0 && command[0].trim() === "") {
      problems.push("deja.server.command starts with an empty program; it is ignored");
    }
  }
  if (python !== undefined && python !== null && typeof python !== "string") {
    problems.push("deja.server.python must be a string (a path to a Python); it is ignored");
  }
  return problems;
}

/**
 * The order of the issue: `deja.server.command` (an argv) → `deja.server.python -m deja serve` →
 * the Python extension's selected interpreter → `python3` on PATH.
 */
export function resolveLaunch(settings: LaunchSettings, pythonExtension?: string[]): Launch {
  const { command, python } = settings;
  if (isStringArray(command) && command.length > 0 && command[0].trim() !== "") {
    return { argv: [...command], source: "deja.server.command" };
  }
  if (typeof python === "string" && python.trim() !== "") {
    const interpreter = python.trim();
    return { argv: [interpreter, ...SERVE_ARGS], source: "deja.server.python", python: interpreter };
  }
  if (pythonExtension !== undefined && pythonExtension.length > 0 && pythonExtension[0] !== "") {
    return {
      argv: [...pythonExtension, ...SERVE_ARGS],
      source: "Python extension",
      python: pythonExtension.join(" "),
    };
  }
  return { argv: ["python3", ...SERVE_ARGS], source: "PATH", python: "python3" };
}

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as a POSIX shell would need it (single quotes unless plainly safe). */
export function shellQuote(arg: string): string {
  if (arg !== "" && SAFE.test(arg)) {
    return arg;
  }
  return `'${arg.replace(/'/g, `'"'"'`)}'`;
}

/** An argv as a command line that can be pasted into a shell. */
export function commandLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}

/** An argument for PowerShell (Windows terminals). */
export function powershellQuote(arg: string): string {
  if (arg !== "" && SAFE.test(arg)) {
    return arg;
  }
  return `'${arg.replace(/'/g, "''")}'`;
}

export interface StartFailure {
  /** `ENOENT` etc. when the program could not be spawned. */
  spawnError?: string;
  exitCode?: number | null;
  /** The tail of the server's stderr. */
  stderr: string;
}

/** One notification naming the fix, from what the failed start left behind. */
export function diagnose(launch: Launch, failure: StartFailure): string {
  const program = launch.argv[0];
  const python = launch.python ?? program;
  const pip = `${python} -m pip install -e <your Deja clone>`;
  const where =
    launch.source === "deja.server.command"
      ? "the `deja.server.command` setting"
      : launch.source === "deja.server.python"
        ? "the `deja.server.python` setting"
        : launch.source === "Python extension"
          ? "the Python extension's selected interpreter"
          : launch.source === "Python Environments extension"
            ? "the Python Environments extension's environment"
            : "PATH";
  if (failure.spawnError === "ENOENT") {
    return (
      `Deja: cannot start its server: \`${program}\` (from ${where}) was not found. ` +
      "Set `deja.server.python` to a Python 3.11 or newer (or `deja.server.command`)."
    );
  }
  if (failure.spawnError === "EACCES") {
    return `Deja: cannot start its server: \`${program}\` (from ${where}) is not executable. Fix the \`deja.server.*\` settings.`;
  }
  if (failure.spawnError !== undefined) {
    return `Deja: cannot start its server (${failure.spawnError}) with \`${commandLine(launch.argv)}\` from ${where}. See the Deja output.`;
  }
  const stderr = failure.stderr;
  if (/No module named '?deja'?/.test(stderr) || /No module named deja\b/.test(stderr)) {
    return (
      `Deja: the Python from ${where} (\`${python}\`) does not have Deja installed. ` +
      `Set \`deja.server.python\` to a Python that has it (after \`make demo\`: \`<your Deja clone>/.venv/bin/python\`), or install it: \`${pip}\`.`
    );
  }
  if (/invalid choice: 'serve'/.test(stderr) || /No module named '?deja\.(lsp|cli\.serve_command)/.test(stderr) || /No module named '?(pygls|lsprotocol)'?/.test(stderr)) {
    return (
      `Deja: the Deja installed for \`${python}\` is too old or incomplete for the editor (no working \`deja serve\`). ` +
      `Update it: \`${pip}\` from a current clone.`
    );
  }
  if (/requires a different Python|SyntaxError|Python 3\.\d+ or newer/.test(stderr)) {
    return `Deja: \`${python}\` is too old for Deja (it needs Python 3.11 or newer). Set \`deja.server.python\` to a newer Python.`;
  }
  const code = failure.exitCode === undefined || failure.exitCode === null ? "" : ` (exit code ${failure.exitCode})`;
  return `Deja: its server stopped while starting${code}: \`${commandLine(launch.argv)}\` from ${where}. See the Deja output for its error.`;
}

/** Whether the server's `serverInfo` is one this extension can talk to. */
export function serverMismatch(info: { name?: string; version?: string } | undefined): string | undefined {
  if (info === undefined || info.name !== "deja") {
    return `the server is not Deja's (serverInfo ${JSON.stringify(info ?? null)})`;
  }
  return undefined;
}

/** The log line for a start: the command, where it came from, and the interpreter it runs. */
export function startingLine(launch: Launch): string {
  const pythonPath = launch.pythonPath !== undefined ? `PYTHONPATH=${commandLine([launch.pythonPath])} ` : "";
  const interpreter = launch.executable !== undefined ? `, Python ${launch.version ?? "?"} at ${launch.executable}` : "";
  return `starting the server (from ${launch.source}${interpreter}): ${pythonPath}${commandLine(launch.argv)}`;
}

/** The server's initialization options: the settings that are set, and the opt-in to Deja's own
 * notifications (index changes, the store's status), which this extension handles. */
export function serverOptions(scope: string | undefined, continueRoot: string | undefined): Record<string, string | boolean> {
  const options: Record<string, string | boolean> = { notifications: true };
  if (scope !== undefined) {
    options.scope = scope;
  }
  if (continueRoot !== undefined) {
    options.continueRoot = continueRoot;
  }
  return options;
}
