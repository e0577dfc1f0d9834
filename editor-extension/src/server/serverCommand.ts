/** Which command starts the sidecar. `deja.server.command` runs as given; otherwise a Python
 * runs the bundled server: `deja.server.python` → the Python Environments extension → the Python
 * extension → `python3` / `python` / `py -3` on PATH, each checked for ≥ 3.11. Every step is
 * logged. */

import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { delimiter, join, sep } from "node:path";
import { candidates, noPythonMessage, parseProbe, PROBE_ARGS, probeText, serverEnvironment, usable, withPythonPath, type Bundle, type Candidate, type Probe } from "./interpreter";
import { commandLine, resolveLaunch, settingProblems, SERVE_ARGS, type Launch } from "./launch";
import { selectedInterpreter } from "./python";
import { environmentsInterpreter } from "./pythonEnvs";
import { importStrategy, launchSettings } from "./settings";

export type Resolution = { launch: Launch } | { noPython: string };

interface ProbeResult {
  probe?: Probe;
  problem?: string;
}

function probe(argv: string[]): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(argv[0], [...argv.slice(1), ...PROBE_ARGS], { timeout: 15_000, windowsHide: true, encoding: "utf8" }, (error, stdout, stderr) => {
      const found = parseProbe(stdout);
      if (found !== undefined) {
        resolve({ probe: found });
      } else {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        const why = code ?? (error?.message ?? "no output");
        resolve({ problem: code === "ENOENT" ? "not found" : `did not answer the version probe (${why}${stderr ? `: ${stderr.trim().slice(0, 200)}` : ""})` });
      }
    });
  });
}

export function bundle(extensionPath: string): Bundle {
  const root = join(extensionPath, "bundled");
  const orjson = join(root, "orjson");
  return {
    root,
    hasLibs: existsSync(join(root, "libs", "deja", "__init__.py")),
    orjsonTags: existsSync(orjson) ? readdirSync(orjson).filter((name) => /^cp\d+$/.test(name)) : [],
    separator: sep,
    pathDelimiter: delimiter,
  };
}

function launchFor(candidate: Candidate, found: Probe | undefined, bundled: Bundle, log: (line: string) => void): Launch {
  const environment = serverEnvironment(importStrategy(), found, bundled);
  log(environment.note);
  const pythonPath = withPythonPath(process.env.PYTHONPATH, environment.pythonPath, bundled.pathDelimiter);
  const version = found !== undefined ? `${found.major}.${found.minor}` : undefined;
  const launch: Launch = { argv: [...candidate.argv, ...SERVE_ARGS], source: candidate.source, python: candidate.argv.join(" "), pythonPath, interpreter: candidate.argv, version };
  if (found?.executable !== undefined) {
    launch.executable = found.executable;
  }
  return launch;
}

export async function serverCommand(log: (line: string) => void, bundled: Bundle): Promise<Resolution> {
  const settings = launchSettings();
  for (const problem of settingProblems(settings)) {
    log(problem);
  }
  const first = resolveLaunch(settings);
  if (first.source === "deja.server.command") {
    log(`deja.server.command is set: it runs as given (${commandLine(first.argv)})`);
    return { launch: first };
  }
  if (first.source === "deja.server.python") {
    const python = [first.python ?? first.argv[0]];
    const checked = await probe(python);
    log(`deja.server.python: ${python[0]}: ${checked.probe !== undefined ? probeText(checked.probe) : checked.problem}`);
    if (checked.probe !== undefined && !usable(checked.probe)) {
      log(`deja.server.python is older than 3.11; it is used anyway, as the setting says`);
    }
    return { launch: launchFor({ argv: python, source: "deja.server.python" }, checked.probe, bundled, log) };
  }
  log("no deja.server.command or deja.server.python: looking for a Python 3.11 or newer");
  // Only asked when no setting names one: activating these extensions takes time.
  const list = candidates(await environmentsInterpreter(log), await selectedInterpreter(log));
  const tried: string[] = [];
  for (const candidate of list) {
    const checked = await probe(candidate.argv);
    const what = checked.probe !== undefined ? probeText(checked.probe) : (checked.problem ?? "?");
    log(`${candidate.source}: ${commandLine(candidate.argv)}: ${what}${checked.probe !== undefined && !usable(checked.probe) ? " (too old, needs 3.11)" : ""}`);
    tried.push(`${commandLine(candidate.argv)} (${what})`);
    if (usable(checked.probe)) {
      return { launch: launchFor(candidate, checked.probe, bundled, log) };
    }
  }
  return { noPython: noPythonMessage(tried, process.platform) };
}
