/** `deja doctor --json` read and shown as a document ("Deja: Show Diagnostics"). The envelope:
 * `{"schema": 1, "command": "doctor", "ok": bool, "checks": [{name, ok, detail, fix}]}`; exit 0
 * when all is well, 1 when something is wrong. Pure: unit-tested with a fixture. */

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}

export interface DoctorReport {
  schema: number;
  command: "doctor";
  ok: boolean;
  checks: DoctorCheck[];
}

function isCheck(value: unknown): value is DoctorCheck {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const check = value as Record<string, unknown>;
  return typeof check.name === "string" && typeof check.ok === "boolean" && typeof check.detail === "string" && (check.fix === null || typeof check.fix === "string");
}

/** The report, or the reason it cannot be read (an error envelope's message, not JSON, a wrong shape). */
export function parseDoctor(stdout: string): DoctorReport | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return { problem: "it did not print JSON" };
  }
  if (typeof data !== "object" || data === null) {
    return { problem: "its JSON is not an object" };
  }
  const envelope = data as Record<string, unknown>;
  const error = envelope.error as { message?: unknown } | undefined;
  if (error !== undefined && typeof error.message === "string") {
    return { problem: error.message };
  }
  if (envelope.command !== "doctor" || typeof envelope.ok !== "boolean" || !Array.isArray(envelope.checks) || !envelope.checks.every(isCheck)) {
    return { problem: "its JSON is not the doctor's envelope" };
  }
  return { schema: Number(envelope.schema), command: "doctor", ok: envelope.ok, checks: envelope.checks };
}

/** Text as one markdown paragraph: no heading, list or HTML from what the checks say. */
function plain(text: string): string {
  return text.replace(/([\\`*_{}[\]<>#|])/g, "\\$1").replace(/\n+/g, "  \n");
}

export interface DoctorRun {
  commandLine: string;
  exitCode: number | null;
  stderr: string;
}

/** The document: a verdict, then the problems (each with its fix), then what is fine. */
export function renderDoctor(report: DoctorReport | { problem: string }, run: DoctorRun): string {
  const lines = ["# Deja: diagnostics", ""];
  if ("problem" in report) {
    lines.push(`\`deja doctor\` did not give its report: ${plain(report.problem)} (exit code ${String(run.exitCode)}).`, "");
    if (run.stderr.trim() !== "") {
      lines.push("```text", run.stderr.trim().slice(-4000), "```", "");
    }
    lines.push(`Ran: \`${run.commandLine}\``, "");
    return lines.join("\n");
  }
  const problems = report.checks.filter((check) => !check.ok);
  const fine = report.checks.filter((check) => check.ok);
  const verdict = report.ok && problems.length === 0 ? "**All is well.**" : `**${problems.length} problem${problems.length === 1 ? "" : "s"} found.**`;
  lines.push(verdict, "");
  if (problems.length > 0) {
    lines.push("## Problems", "");
    for (const check of problems) {
      lines.push(`### ✗ ${plain(check.name)}`, "", plain(check.detail), "");
      lines.push(check.fix !== null && check.fix !== "" ? `**Fix:** ${plain(check.fix)}` : "No fix is known for this.", "");
    }
  }
  if (fine.length > 0) {
    lines.push("## Fine", "");
    for (const check of fine) {
      lines.push(`- ✓ **${plain(check.name)}**: ${plain(check.detail)}`);
    }
    lines.push("");
  }
  lines.push(`Ran: \`${run.commandLine}\` (exit code ${String(run.exitCode)})`, "");
  return lines.join("\n");
}
