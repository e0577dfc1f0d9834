/** Which command starts the sidecar: the `deja.server.*` settings, else the Python extension's
 * selected interpreter, else `python3` on PATH (the order is `resolveLaunch`'s). */

import { resolveLaunch, settingProblems, type Launch } from "./pure/launch";
import { selectedInterpreter } from "./python";
import { launchSettings } from "./settings";

export async function serverCommand(log: (line: string) => void): Promise<Launch> {
  const settings = launchSettings();
  for (const problem of settingProblems(settings)) {
    log(problem);
  }
  const first = resolveLaunch(settings);
  if (first.source !== "PATH") {
    return first;
  }
  // Only asked when no setting names a command: activating the Python extension takes time.
  const interpreter = await selectedInterpreter(log);
  return resolveLaunch(settings, interpreter);
}
