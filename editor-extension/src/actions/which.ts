/** Finding a program on PATH (is `cn` installed?). Pure but for the injected file check. */

export function findOnPath(
  program: string,
  pathValue: string | undefined,
  isExecutable: (candidate: string) => boolean,
  platform: string = process.platform,
): string | undefined {
  const separator = platform === "win32" ? ";" : ":";
  const slash = platform === "win32" ? "\\" : "/";
  const extensions = platform === "win32" ? ["", ".cmd", ".exe", ".bat", ".ps1"] : [""];
  if (program.includes("/") || (platform === "win32" && program.includes("\\"))) {
    return isExecutable(program) ? program : undefined;
  }
  for (const folder of (pathValue ?? "").split(separator)) {
    if (folder === "") {
      continue;
    }
    for (const extension of extensions) {
      const candidate = folder.endsWith(slash) ? `${folder}${program}${extension}` : `${folder}${slash}${program}${extension}`;
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
