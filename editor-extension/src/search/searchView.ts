/** Deja: Search in View — the pure parts: the filters and the requests they make, hits grouped
 * by session across pages, a hit's one-line label with its highlight ranges, the counts line. */

import { ago, oneLine, titleOf } from "../shared/format";
import type { SearchHit, SearchResult, SearchScope, TouchedFile } from "../shared/protocol";

export type ViewMode = "hits" | "files";

export interface SearchFilters {
  query: string;
  role: string; // "" for every role
  since: string; // "" for any time; else 30m, 12h, 7d, 2w or a date
  file: string; // "" for every file; else a path or its end
  scope: SearchScope;
  mode: ViewMode;
}

/** The roles `deja/search` takes (docs/protocol.md). */
export const ROLES = ["user", "assistant", "reasoning", "summary", "command", "read", "edit", "tool"] as const;
export const PAGE = 50;
export const FILES_LIMIT = 50;
const SCOPES: readonly SearchScope[] = ["workspace", "all", "team"];

export function emptyFilters(scope: SearchScope = "workspace"): SearchFilters {
  return { query: "", role: "", since: "", file: "", scope, mode: "hits" };
}

/** A message from the webview, checked field by field (it is input, not trusted). */
export function filtersOf(value: unknown): SearchFilters | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const text = (name: string): string | undefined => (typeof record[name] === "string" ? record[name] : undefined);
  const [query, role, since, file, scope, mode] = ["query", "role", "since", "file", "scope", "mode"].map(text);
  if (query === undefined || role === undefined || since === undefined || file === undefined || scope === undefined || mode === undefined) {
    return undefined;
  }
  if ((role !== "" && !(ROLES as readonly string[]).includes(role)) || !SCOPES.includes(scope as SearchScope) || (mode !== "hits" && mode !== "files")) {
    return undefined;
  }
  return { query, role, since: since.trim(), file: file.trim(), scope: scope as SearchScope, mode };
}

/** `deja/search`'s params for one page: empty filters left out; the team database takes no file. */
export function searchParams(filters: SearchFilters, offset: number, limit: number = PAGE): Record<string, unknown> {
  const params: Record<string, unknown> = { query: filters.query, scope: filters.scope, limit, offset, count: true };
  if (filters.role !== "") {
    params.role = filters.role;
  }
  if (filters.since !== "") {
    params.since = filters.since;
  }
  if (filters.file !== "" && filters.scope !== "team") {
    params.file = filters.file;
  }
  return params;
}

/** `deja/files`' params, or why the filters cannot ask it (the team database has no file view). */
export function filesParams(filters: SearchFilters, limit: number = FILES_LIMIT): { params?: Record<string, unknown>; refusal?: string } {
  if (filters.scope === "team") {
    return { refusal: "Files a topic touched come from this machine's index: choose This workspace or All workspaces." };
  }
  return { params: { topic: filters.query, scope: filters.scope, limit } };
}

/** Code-point offsets (the wire's) as offsets into the JavaScript (UTF-16) string. */
export function utf16Ranges(text: string, ranges: readonly (readonly number[])[]): [number, number][] {
  const starts: number[] = [];
  let unit = 0;
  for (const char of text) {
    starts.push(unit);
    unit += char.length;
  }
  starts.push(unit);
  const at = (point: number) => starts[Math.max(0, Math.min(point, starts.length - 1))];
  return ranges.map(([start, end]) => [at(start), at(end)] as [number, number]).filter(([start, end]) => end > start);
}

export interface Highlighted {
  label: string;
  highlights: [number, number][];
}

const LEAD = 16; // characters kept before the first match

/** A hit's tree label: its snippet on one line, at most `max` characters, from a little before the
 * first match (the sidebar is narrow), with the matched words' ranges moved to match. */
export function hitLabel(hit: Pick<SearchHit, "snippet_text" | "highlights" | "file">, max = 120): Highlighted {
  const source = hit.snippet_text;
  const ranges = utf16Ranges(source, hit.highlights);
  // Whitespace runs become one space; map[i] is where source[i] lands.
  let flat = "";
  const map: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const blank = /\s/.test(source[i]);
    map.push(flat.length);
    if (!blank) {
      flat += source[i];
    } else if (flat !== "" && !flat.endsWith(" ")) {
      flat += " ";
    }
  }
  map.push(flat.length);
  let moved = ranges.map(([start, end]) => [map[start], map[end]] as [number, number]);
  let label = flat.trimEnd();
  if (label === "") {
    return { label: hit.file ?? "(no text)", highlights: [] };
  }
  // As VS Code's search shows a match: a few characters of what comes before, then the rest.
  // Cut only when it saves a few characters, and at the start of a word.
  const first = moved[0]?.[0] ?? 0;
  let start = 0;
  if (first > LEAD + 8) {
    start = first - LEAD;
    const space = label.indexOf(" ", start);
    start = space >= 0 && space < first ? space + 1 : start;
    if (/[\uDC00-\uDFFF]/.test(label[start])) {
      start += 1; // not inside a surrogate pair
    }
  }
  if (start > 0 || label.length > max) {
    const prefix = start > 0 ? "…" : "";
    const room = max - prefix.length - 1;
    const body = label.slice(start, start + room);
    const suffix = label.length - start > room ? "…" : "";
    const shift = prefix.length - start;
    label = prefix + body + suffix;
    moved = moved.map(([a, b]) => [Math.max(a + shift, prefix.length), Math.min(b + shift, prefix.length + body.length)] as [number, number]);
  }
  return { label, highlights: moved.filter(([a, b]) => b > a && b <= label.length) };
}

export interface SessionGroup {
  key: string;
  sessionId: string;
  title: string;
  project: string;
  member?: string;
  latest: string | null;
  hits: SearchHit[];
}

/** The pages of one search: hits kept in rank order, grouped by session in the order each
 * session's best hit came. */
export class SearchPages {
  readonly hits: SearchHit[] = [];
  total: number | null = null;
  notes: string[] = [];
  approximate = false;

  constructor(readonly filters: SearchFilters) {}

  add(result: SearchResult): void {
    const seen = new Set(this.hits.map(hitKey));
    this.hits.push(...result.hits.filter((hit) => !seen.has(hitKey(hit))));
    this.total = result.total ?? this.total;
    this.notes = result.notes;
    this.approximate = result.approximate;
  }

  get nextOffset(): number {
    return this.hits.length;
  }

  /** More hits beyond those loaded (the total says so). */
  get hasMore(): boolean {
    return this.total !== null && this.hits.length < this.total;
  }

  groups(): SessionGroup[] {
    const groups = new Map<string, SessionGroup>();
    for (const hit of this.hits) {
      const key = hit.member !== undefined ? `${hit.member}/${hit.session_id}` : hit.session_id;
      let group = groups.get(key);
      if (group === undefined) {
        group = { key, sessionId: hit.session_id, title: hit.title, project: hit.project, member: hit.member, latest: hit.time, hits: [] };
        groups.set(key, group);
      }
      group.hits.push(hit);
      if (hit.time !== null && (group.latest === null || hit.time > group.latest)) {
        group.latest = hit.time;
      }
    }
    return [...groups.values()];
  }
}

function hitKey(hit: SearchHit): string {
  return `${hit.member ?? ""}/${hit.session_id}/${hit.turn}/${hit.role}/${hit.snippet_text}`;
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

const SCOPE_WORDS: Record<SearchScope, string> = { workspace: "this workspace", all: "all workspaces", team: "the team's history" };

/** The counts line: "57 hits in 12 sessions"; while pages remain, how many of them are shown. */
export function countText(pages: SearchPages): string {
  const sessions = pages.groups().length;
  const loaded = pages.hits.length;
  if (loaded === 0) {
    return `No Continue session matches “${pages.filters.query}” in ${SCOPE_WORDS[pages.filters.scope]}`;
  }
  const total = pages.total ?? loaded;
  if (loaded >= total) {
    return `${plural(total, "hit")} in ${plural(sessions, "session")}`;
  }
  return `${plural(total, "hit")}: the first ${loaded} in ${plural(sessions, "session")}`;
}

/** A group row's description: `3 hits · 2 days ago`, and the team member who pushed it. */
export function groupDescription(group: SessionGroup, now?: number): string {
  const parts = [plural(group.hits.length, "hit"), ago(group.latest, now)];
  if (group.member !== undefined) {
    parts.push(`by ${group.member}`);
  }
  return parts.join(" · ");
}

export function groupLabel(group: SessionGroup): string {
  return titleOf(group.title);
}

/** A hit row's description: role, turn and the badges that matter. */
export function hitDescription(hit: SearchHit): string {
  const parts = [hit.role, `turn ${hit.turn}`];
  if (hit.exit_code !== null) {
    parts.push(hit.exit_code === 0 ? "exit 0" : `exit ${hit.exit_code} ✗`);
  }
  if (hit.compacted) {
    parts.push("compacted");
  }
  return parts.join(" · ");
}

/** A file row of the Files mode: its path in its workspace, and how much of the topic's work touched it. */
export function fileRow(file: TouchedFile, now?: number): { label: string; description: string } {
  const work = [file.edits > 0 ? plural(file.edits, "edit") : "", file.writes > 0 ? plural(file.writes, "write") : "", file.reads > 0 ? plural(file.reads, "read") : ""];
  const parts = [...work.filter((part) => part !== ""), plural(file.sessions.length, "session"), ago(file.last, now)];
  return { label: oneLine(file.relative || file.path, 120), description: parts.join(" · ") };
}

/** The Files mode's counts line; `sessions` is how many sessions matched the topic. */
export function filesCountText(total: number, shown: number, sessions: number, topic: string): string {
  if (shown === 0) {
    return `No file touched by the sessions about “${topic}”`;
  }
  const files = shown < total ? `${plural(total, "file")}: the first ${shown}` : plural(total, "file");
  return `${files}, from ${plural(sessions, "session")} about “${topic}”`;
}
