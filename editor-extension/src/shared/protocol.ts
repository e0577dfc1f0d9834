/** Types of the sidecar's results (docs/protocol.md). Field names are the server's (snake_case). */

export type Scope = "workspace" | "all";

/** The scopes `deja/search` takes: the local index's and the team database (`deja team`). */
export type SearchScope = Scope | "team";

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface SearchHit {
  session_id: string;
  title: string;
  workspace: string;
  project: string;
  turn: number;
  time: string | null;
  role: string;
  snippet: string;
  /** The snippet without its match marks, and the matched words' [start, end) offsets in it
   * (Unicode code points: `highlightsOf` turns them into a JavaScript string's). */
  snippet_text: string;
  highlights: number[][]; // each [start, end]
  file: string | null;
  exit_code: number | null;
  status: string | null;
  compacted: boolean;
  deleted: boolean;
  score: number;
  /** Who pushed it: team hits only. */
  member?: string;
  /** Found by meaning only (the semantic extra): no word of the query is in it. */
  meaning_only: boolean;
}

export interface SearchResult {
  query: string;
  scope: string;
  approximate: boolean;
  notes: string[];
  /** Every hit when the request asked `count: true`, else null. */
  total: number | null;
  hits: SearchHit[];
}

/** `deja/teamStatus`: whether the team scope can be offered, and why not. */
export interface TeamStatus {
  configured: boolean;
  name: string | null;
  reason: string | null;
}

export interface SessionSummary {
  id: string;
  title: string;
  workspace: string;
  project: string;
  started: string | null;
  last_active: string | null;
  first_user: string | null;
  last_user: string | null;
  message_count: number;
  size: number;
  lost_context: boolean;
  kept_turns: number;
  deleted: boolean;
  current: boolean;
  /** A fork (`cn --fork`): the parent's id and title, and the first turn that is its own.
   * The turns before it are the parent's, shown under the parent. */
  forked_from?: string | null;
  forked_from_title?: string | null;
  fork_turn?: number | null;
}

export interface SessionsResult {
  scope: string;
  notes: string[];
  sessions: SessionSummary[];
}

export interface SessionRecord {
  turn: number;
  role: string;
  time: string | null;
  text: string | null;
  tool: string | null;
  status: string | null;
  path: string | null;
  exit_code: number | null;
  // Sent always; optional because the extension does not read them (its tests build records).
  output?: string | null;
  args?: unknown;
  hunks?: RecordHunk[];
  compacted: boolean;
}

export interface SessionTurn {
  turn: number;
  time: string | null;
  compacted: boolean;
  records: SessionRecord[];
}

export interface SessionResult {
  session: SessionSummary;
  turns: SessionTurn[];
  markdown: string;
}

/** A record of the session view (`deja/sessionView`): texts past a cap are cut, `*_chars` their
 * full length; an edit's lines `added`/`removed` and `diff_lines` counted over all its hunks. */
export interface SessionViewRecord extends SessionRecord {
  text_chars: number;
  output_chars: number;
  added: number;
  removed: number;
  diff_lines: number;
}

export interface SessionViewTurn {
  turn: number;
  time: string | null;
  compacted: boolean;
  /** A fork's copy of its parent's turn. */
  inherited: boolean;
  records: SessionViewRecord[];
}

/** One page of turns: the first is at position `offset` of `total_turns`. */
export interface SessionViewResult {
  session: SessionSummary;
  offset: number;
  total_turns: number;
  at_turn: number | null;
  turns: SessionViewTurn[];
}

/** An edit's text: `replaced` is null for a whole-file write. */
export interface RecordHunk {
  replaced: string | null;
  written: string | null;
}

/** A hunk placed in the current text (`deja/fileHistory`): null when its text is gone. */
export interface Hunk extends RecordHunk {
  range: LspRange | null;
}

export interface FileEvent {
  session_id: string;
  title: string;
  workspace: string;
  turn: number;
  time: string | null;
  role: string;
  tool: string | null;
  status: string | null;
  path: string;
  compacted: boolean;
  request: string | null;
  hunks: Hunk[];
  range: LspRange | null;
  /** A line the event wrote was edited since ("changed since"). */
  changed: boolean;
}

export interface FileHistoryResult {
  uri: string;
  path: string;
  events: FileEvent[];
}

export interface ForkCommandResult {
  command: string;
  args: string[];
  cwd: string | null;
  note: string;
}

/** A numbered session of the restore listing: its number and its summary, as in `deja/sessions`. */
export interface RestoreListingItem extends SessionSummary {
  number: number;
}

export interface RestoreResult {
  text: string;
  markdown: string;
  message: string;
  listing: RestoreListingItem[];
  restored: string[];
  scope: string;
  notes: string[];
  topic: string | null;
}

/** `deja/fix`: one edit or command a session ran after an error was last seen. */
export interface FixStep {
  turn: number;
  time: string | null;
  role: string;
  tool: string | null;
  what: string;
  status: string | null;
  exit_code: number | null;
}

/** A past failure with the same (or a close) error signature, and what made it go away. */
export interface PastFailure {
  session_id: string;
  title: string;
  workspace: string;
  project: string;
  turn: number;
  time: string | null;
  call: string;
  exit_code: number | null;
  status: string | null;
  error: string;
  similarity: number;
  attempts: number;
  /** false: the error was still there when that session ended. */
  fixed: boolean;
  /** A later run of the same command no longer showed it (`passed_by`). */
  confirmed: boolean;
  steps: FixStep[];
  passed_by: FixStep | null;
  same_fix: number;
}

export interface FixResult {
  error: string;
  total: number;
  notes: string[];
  failures: PastFailure[];
  markdown: string;
}

export interface TouchingSession {
  session_id: string;
  title: string;
  last_active: string | null;
  events: number;
}

export interface TouchedFile {
  path: string;
  relative: string;
  workspace: string;
  edits: number;
  writes: number;
  reads: number;
  weight: number;
  last: string | null;
  sessions: TouchingSession[];
}

/** `deja/files`: the files the sessions matching a topic touched, most worked-on first. */
export interface FilesResult {
  topic: string;
  sessions: number;
  total: number;
  scope: string;
  notes: string[];
  files: TouchedFile[];
  markdown: string;
}

/** `deja/indexChanged`: the sessions a pass added, re-read or marked deleted. */
export interface IndexChanged {
  sessions: string[];
}

/** `deja/storeStatus`: sent when passes stop (or start again) applying Continue's store. */
export type StoreProblem = "missing" | "unreadable" | "empty";

export interface StoreStatus {
  ok: boolean;
  problem: StoreProblem | null;
  message: string | null;
}

export const Methods = {
  search: "deja/search",
  sessions: "deja/sessions",
  session: "deja/session",
  sessionView: "deja/sessionView",
  fileHistory: "deja/fileHistory",
  forkCommand: "deja/forkCommand",
  restore: "deja/restore",
  fix: "deja/fix",
  files: "deja/files",
  teamStatus: "deja/teamStatus",
  indexChanged: "deja/indexChanged",
  storeStatus: "deja/storeStatus",
  recover: "deja/recover",
  lostSessions: "deja/lostSessions",
  export: "deja/export",
} as const;

export const IndexingToken = "deja/indexing";

/** The server's own command ids (vscode-languageclient registers them as VS Code commands). */
export const ServerCommands = {
  showFileHistory: "deja.showFileHistory",
  showSession: "deja.showSession",
  searchHistory: "deja.searchHistory",
  forkSession: "deja.forkSession",
} as const;

/** The extension's own command ids: `deja.vscode.*`, never the server's. */
export const Commands = {
  search: "deja.vscode.search",
  toggleSearchScope: "deja.vscode.toggleSearchScope",
  restartServer: "deja.vscode.restartServer",
  showOutput: "deja.vscode.showOutput",
  showServerProblem: "deja.vscode.showServerProblem",
  showPastEdits: "deja.vscode.showPastEdits",
  listPastEdits: "deja.vscode.listPastEdits",
  openSession: "deja.vscode.openSession",
  openSessionRendered: "deja.vscode.openSessionRendered",
  openSessionAsText: "deja.vscode.openSessionAsText",
  forkSession: "deja.vscode.forkSession",
  reopenInContinue: "deja.vscode.reopenInContinue",
  copySessionId: "deja.vscode.copySessionId",
  refreshHistory: "deja.vscode.refreshHistory",
  restoreContext: "deja.vscode.restoreContext",
  copyRestore: "deja.vscode.copyRestore",
  connectContinue: "deja.vscode.connectContinue",
  disconnectContinue: "deja.vscode.disconnectContinue",
  showDiagnostics: "deja.vscode.showDiagnostics",
  whatFixedThis: "deja.vscode.whatFixedThis",
  searchInView: "deja.vscode.searchInView",
  searchViewLoadMore: "deja.vscode.searchViewLoadMore",
  recoverIntoContinue: "deja.vscode.recoverIntoContinue",
  exportSession: "deja.vscode.exportSession",
} as const;
