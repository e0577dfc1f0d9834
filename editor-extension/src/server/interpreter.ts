/** Which Python runs the bundled server: the candidates in order, the version probe's answer,
 * the environment the server gets (the bundled libraries on PYTHONPATH) and what to say when no
 * Python is usable. Pure: no `vscode` import, unit-tested with node's test runner. */

import type { LaunchSource } from "./launch";

export interface Candidate {
  /** The interpreter as an argv prefix (`["py", "-3"]`, `["conda", "run", …, "python"]`). */
  argv: string[];
  source: LaunchSource;
}

export interface Probe {
  major: number;
  minor: number;
  micro: number;
  /** Whether the interpreter's own environment has Deja (for `importStrategy: fromEnvironment`). */
  hasDeja: boolean;
  /** The interpreter's absolute path (`sys.executable`): what `python3` on PATH really is. */
  executable?: string;
}

export type ImportStrategy = "useBundled" | "fromEnvironment";

export const MIN_PYTHON = { major: 3, minor: 11 };

/** One spawn answers the questions: the version, whether Deja is importable, and the path. */
export const PROBE_ARGS = [
  "-c",
  "import sys,importlib.util as u;v=sys.version_info;print('deja-probe',v[0],v[1],v[2],int(u.find_spec('deja') is not None),sys.executable)",
];

/** `python3`, `python`, then the Windows launcher `py -3`, as found on PATH. */
export const PATH_CANDIDATES: Candidate[] = [
  { argv: ["python3"], source: "PATH" },
  { argv: ["python"], source: "PATH" },
  { argv: ["py", "-3"], source: "PATH" },
];

export function parseProbe(stdout: string): Probe | undefined {
  const match = /deja-probe (\d+) (\d+) (\d+) ([01])(?: ([^\r\n]*\S))?/.exec(stdout);
  if (match === null) {
    return undefined;
  }
  const found: Probe = { major: Number(match[1]), minor: Number(match[2]), micro: Number(match[3]), hasDeja: match[4] === "1" };
  if (match[5] !== undefined) {
    found.executable = match[5];
  }
  return found;
}

export function versionText(probe: Probe): string {
  return `${probe.major}.${probe.minor}.${probe.micro}`;
}

/** `Python 3.12.1 at /usr/bin/python3.12`: the version and, when known, the interpreter itself. */
export function probeText(probe: Probe): string {
  return `Python ${versionText(probe)}${probe.executable !== undefined ? ` at ${probe.executable}` : ""}`;
}

export function usable(probe: Probe | undefined): probe is Probe {
  return probe !== undefined && (probe.major > MIN_PYTHON.major || (probe.major === MIN_PYTHON.major && probe.minor >= MIN_PYTHON.minor));
}

/** The candidates after the settings, in the issue's order, without repeats. */
export function candidates(environments: string[] | undefined, pythonExtension: string[] | undefined): Candidate[] {
  const found: Candidate[] = [];
  if (environments !== undefined && environments.length > 0 && environments[0] !== "") {
    found.push({ argv: environments, source: "Python Environments extension" });
  }
  if (pythonExtension !== undefined && pythonExtension.length > 0 && pythonExtension[0] !== "") {
    found.push({ argv: pythonExtension, source: "Python extension" });
  }
  found.push(...PATH_CANDIDATES);
  const seen = new Set<string>();
  return found.filter((candidate) => {
    const key = candidate.argv.join("\0");
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

export interface Bundle {
  /** `<extension>/bundled`, with `libs/` and, in a platform package, `orjson/cpXY/`. */
  root: string;
  hasLibs: boolean;
  /** The `cpXY` folders present under `orjson/`. */
  orjsonTags: string[];
  separator: string;
  pathDelimiter: string;
}

export interface ServerEnvironment {
  /** The PYTHONPATH entries put first (none when the environment's own Deja runs). */
  pythonPath: string[];
  /** One line for the output channel. */
  note: string;
}

/** What goes on PYTHONPATH: the bundled libraries (and this CPython's orjson, when the package
 * has it) unless `fromEnvironment` and the interpreter has Deja itself. */
export function serverEnvironment(strategy: ImportStrategy, probe: Probe | undefined, bundle: Bundle): ServerEnvironment {
  if (strategy === "fromEnvironment" && probe?.hasDeja === true) {
    return { pythonPath: [], note: "importStrategy fromEnvironment: the interpreter's own Deja" };
  }
  if (!bundle.hasLibs) {
    return { pythonPath: [], note: `no bundled server at ${bundle.root} (a development build): the interpreter's own Deja` };
  }
  const libs = `${bundle.root}${bundle.separator}libs`;
  const tag = probe !== undefined ? `cp${probe.major}${probe.minor}` : undefined;
  const paths = [libs];
  let json = "the standard library's json (this package carries no orjson)";
  if (tag !== undefined && bundle.orjsonTags.includes(tag)) {
    paths.push(`${bundle.root}${bundle.separator}orjson${bundle.separator}${tag}`);
    json = `orjson for ${tag}`;
  } else if (bundle.orjsonTags.length > 0) {
    json = `the standard library's json (no orjson for ${tag ?? "this Python"} in this package: ${bundle.orjsonTags.join(", ")})`;
  }
  const why = strategy === "fromEnvironment" ? "importStrategy fromEnvironment, but the interpreter has no Deja: the bundled server" : "the bundled server";
  return { pythonPath: paths, note: `${why} (${libs}); JSON: ${json}` };
}

/** PYTHONPATH with `entries` first, keeping what the user had. */
export function withPythonPath(current: string | undefined, entries: string[], delimiter: string): string | undefined {
  if (entries.length === 0) {
    return current;
  }
  return [...entries, ...(current !== undefined && current !== "" ? [current] : [])].join(delimiter);
}

/** The one notification (and the status bar's tooltip) when no Python ≥ 3.11 was found. */
export function noPythonMessage(tried: string[], platform: string): string {
  const install =
    platform === "win32"
      ? "install Python 3.11 or newer from https://www.python.org/downloads/ (or `winget install Python.Python.3.12`)"
      : platform === "darwin"
        ? "install Python 3.11 or newer (`brew install python@3.12`, or https://www.python.org/downloads/)"
        : "install Python 3.11 or newer (e.g. `sudo apt install python3`, or https://www.python.org/downloads/)";
  const looked = tried.length > 0 ? ` Tried: ${tried.join("; ")}.` : "";
  return `Deja needs Python 3.11 or newer and found none: ${install}, or set \`deja.server.python\` to one. Nothing else is needed: the extension brings Deja's server.${looked}`;
}

export const NO_PYTHON_STATUS = "$(warning) Deja: install Python 3.11+";

/** The argv that runs `deja ARGS` the way the server runs: the interpreter with `-m deja`, or
 * `deja.server.command` with its last `serve` replaced; undefined when neither applies. */
export function dejaArgv(launch: { argv: string[]; interpreter?: string[] }, args: string[]): string[] | undefined {
  if (launch.interpreter !== undefined) {
    return [...launch.interpreter, "-m", "deja", ...args];
  }
  if (launch.argv.length > 1 && launch.argv[launch.argv.length - 1] === "serve") {
    return [...launch.argv.slice(0, -1), ...args];
  }
  return undefined;
}
