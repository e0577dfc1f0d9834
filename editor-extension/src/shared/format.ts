/** How sidecar results read in VS Code: labels, badges, relative times. Pure. */

import type { FileEvent, Hunk, LspRange, SearchHit, SessionSummary, SessionTurn } from "./protocol";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** "just now", "5 minutes ago", "3 days ago", then the date ("2025-11-13"). */
export function ago(iso: string | null | undefined, now: number = Date.now()): string {
  if (iso === null || iso === undefined || iso === "") {
    return "unknown time";
  }
  const time = Date.parse(iso);
  if (Number.isNaN(time)) {
    return "unknown time";
  }
  const delta = now - time;
  if (delta < MINUTE) {
    return "just now";
  }
  if (delta < HOUR) {
    return `${plural(Math.floor(delta / MINUTE), "minute")} ago`;
  }
  if (delta < DAY) {
    return `${plural(Math.floor(delta / HOUR), "hour")} ago`;
  }
  if (delta < 30 * DAY) {
    return `${plural(Math.floor(delta / DAY), "day")} ago`;
  }
  return new Date(time).toISOString().slice(0, 10);
}

/** "2025-11-13 09:30 UTC", for titles that must say exactly when. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) {
    return "unknown time";
  }
  const time = Date.parse(iso);
  if (Number.isNaN(time)) {
    return "unknown time";
  }
  return new Date(time).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** One line, at most `max` characters, cut at a word when possible. */
export function oneLine(text: string | null | undefined, max = 80): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  if (flat.length <= max) {
    return flat;
  }
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut) + "…";
}

export function titleOf(title: string | null | undefined): string {
  const clean = oneLine(title, 100);
  return clean === "" ? "Untitled session" : clean;
}

/** The server marks matched words with `**`: a QuickPick cannot render them. */
export function plainSnippet(snippet: string): string {
  return oneLine(snippet.replace(/\*\*/g, ""), 200);
}

/** The badges that matter first — exit code, failure, compacted, deleted — then role and turn,
 * e.g. `exit 1 ✗ · errored · compacted · command · turn 2`. */
export function hitBadges(hit: SearchHit): string[] {
  const badges: string[] = [];
  if (hit.exit_code !== null && hit.exit_code !== undefined) {
    badges.push(hit.exit_code === 0 ? "exit 0" : `exit ${hit.exit_code} ✗`);
  }
  if (hit.status !== null && hit.status !== undefined && hit.status !== "done" && hit.role !== "user" && hit.role !== "assistant") {
    badges.push(hit.status);
  }
  if (hit.compacted) {
    badges.push("compacted");
  }
  if (hit.deleted) {
    badges.push("deleted");
  }
  if (hit.meaning_only) {
    badges.push("by meaning");
  }
  badges.push(hit.role, `turn ${hit.turn}`);
  return badges;
}

const ROLE_ICONS: Record<string, string> = {
  user: "account",
  assistant: "hubot",
  reasoning: "lightbulb",
  summary: "note",
  command: "terminal",
  read: "eye",
  edit: "edit",
  tool: "tools",
};

/** A codicon name for a record role. */
export function roleIcon(role: string): string {
  return ROLE_ICONS[role] ?? "circle-small";
}

export interface HitItem {
  label: string;
  description: string;
  detail: string;
}

/** A QuickPick row: a short title as the label, so the description that follows on the same line
 * shows the badges that matter (exit code, errored, compacted, role) before project and time. */
export function hitItem(hit: SearchHit, now?: number): HitItem {
  const detail = plainSnippet(hit.snippet) || (hit.file ?? "");
  return {
    label: `$(${roleIcon(hit.role)}) ${oneLine(titleOf(hit.title), HIT_TITLE_CHARS)}`,
    description: [...hitBadges(hit), hit.project || hit.workspace || "no project", ago(hit.time, now)].join(" · "),
    detail,
  };
}

const HIT_TITLE_CHARS = 40; // the label's share of the row, so the badges are not cut first

/** The tree's description of a session: `project · 3 days ago · compacted`. */
export function sessionDescription(session: SessionSummary, now?: number): string {
  const parts = [ago(session.last_active ?? session.started, now)];
  if (session.lost_context) {
    parts.push(session.kept_turns > 0 ? `compacted · ${plural(session.kept_turns, "turn")} only in Deja` : "compacted");
  }
  if (session.deleted) {
    parts.push("deleted");
  }
  if (session.forked_from) {
    parts.push(`fork of ${session.forked_from.slice(0, 8)}`);
  }
  return parts.join(" · ");
}

/** "forked from <title> (<id8>) at turn N", as the sidecar words it; "" for no fork. */
export function forkLine(session: SessionSummary): string {
  if (!session.forked_from) {
    return "";
  }
  const title = oneLine(session.forked_from_title ?? "", 80) || "(untitled)";
  return `forked from ${title} (${session.forked_from.slice(0, 8)}) at turn ${session.fork_turn ?? 0}`;
}

export function sessionTooltip(session: SessionSummary): string {
  const lines = [
    titleOf(session.title),
    `${session.workspace} · ${session.message_count} messages`,
    `started ${when(session.started)}, last active ${when(session.last_active)}`,
    `id ${session.id}`,
  ];
  if (session.lost_context) {
    lines.push(
      `Continue compacted this session${session.kept_turns > 0 ? `: ${plural(session.kept_turns, "turn")} survive only in Deja` : ""}.`,
    );
  }
  if (session.deleted) {
    lines.push("Its file was deleted: only Deja still has it.");
  }
  const fork = forkLine(session);
  if (fork) {
    lines.push(`${fork}: the turns before it are under that session.`);
  }
  return lines.join("\n");
}

/** A turn in the tree: its user request, else its first text. */
export function turnLabel(turn: SessionTurn): string {
  const user = turn.records.find((record) => record.role === "user" && record.text);
  const first = user ?? turn.records.find((record) => record.text || record.path);
  let text = oneLine(first?.text ?? "", 70);
  if (first !== undefined && first !== user && first.path && (first.role === "read" || first.role === "edit")) {
    text = `${first.role === "read" ? "read" : "edited"} ${baseName(first.path)}`;
  }
  return `Turn ${turn.turn}${text ? ` · ${text}` : ""}`;
}

export function turnDescription(turn: SessionTurn, now?: number): string {
  const tools = turn.records.filter((record) => ["command", "edit", "read", "tool"].includes(record.role)).length;
  const parts = [ago(turn.time, now)];
  if (tools > 0) {
    parts.push(plural(tools, "tool call"));
  }
  if (turn.compacted) {
    parts.push("compacted");
  }
  return parts.join(" · ");
}

/** The file name of a path (either separator). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** The request says no more than the title (a title made from it, maybe cut with "…"); the
 * server's `repeats_title` says the same for hovers. */
export function repeatsTitle(request: string, title: string): boolean {
  const asked = oneLine(request, 10_000).toLowerCase();
  const named = oneLine(title, 10_000).toLowerCase();
  if (named === "") {
    return false;
  }
  const stem = named.replace(/(…|\.\.\.)$/, "").trimEnd();
  return asked === named || (stem !== named && stem !== "" && asked.startsWith(stem));
}

/** The two sides of an edit's diff: each hunk's replaced and written text, in order. */
export function diffSides(hunks: readonly Hunk[]): { replaced: string; written: string } {
  const separator = "\n⋯\n";
  const ensureNewline = (text: string) => (text === "" || text.endsWith("\n") ? text : text + "\n");
  return {
    replaced: hunks.map((hunk) => ensureNewline(hunk.replaced ?? "")).join(separator),
    written: hunks.map((hunk) => ensureNewline(hunk.written ?? "")).join(separator),
  };
}

/** The diff editor's title: the session and when. */
export function diffTitle(event: FileEvent): string {
  return `${titleOf(event.title)} · ${when(event.time)} — ${baseName(event.path)} (replaced ↔ written)`;
}

/** Status bar text while indexing, from a `$/progress` value. */
export function indexingText(message: string | undefined, percentage: number | undefined): string {
  if (message) {
    return `$(sync~spin) Deja: indexing ${message}`;
  }
  if (percentage !== undefined) {
    return `$(sync~spin) Deja: indexing ${Math.round(percentage)}%`;
  }
  return "$(sync~spin) Deja: indexing";
}

export function sessionsText(count: number, more: boolean): string {
  return `$(history) Deja: ${count}${more ? "+" : ""} session${count === 1 && !more ? "" : "s"}`;
}

/** The distinct ranges where past edits' written text still stands, in the events' order. */
export function standingRanges(edits: readonly FileEvent[]): LspRange[] {
  const seen = new Set<string>();
  const ranges: LspRange[] = [];
  for (const event of edits) {
    for (const hunk of event.hunks) {
      if (hunk.range === null || hunk.range === undefined) {
        continue;
      }
      const key = `${hunk.range.start.line}:${hunk.range.start.character}-${hunk.range.end.line}:${hunk.range.end.character}`;
      if (!seen.has(key)) {
        seen.add(key);
        ranges.push(hunk.range);
      }
    }
  }
  return ranges;
}
