/** Deja: Search in View's pure parts: filters checked and turned into requests, highlights from
 * the wire's code-point offsets, labels cut around the match, grouping and paging, counts. */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { SearchHit, SearchResult, TeamStatus, TouchedFile } from "../../src/shared/protocol";
import {
  countText,
  emptyFilters,
  fileRow,
  filesCountText,
  filesParams,
  filtersOf,
  groupDescription,
  hitLabel,
  SearchPages,
  searchParams,
  utf16Ranges,
} from "../../src/search/searchView";
import searchFixture from "../fixtures/protocol/search.json";
import teamStatusFixture from "../fixtures/protocol/teamStatus.json";

const NOW = Date.parse("2025-06-20T17:00:00Z");

function hit(turn: number, session: string, extra: Partial<SearchHit> = {}): SearchHit {
  return {
    session_id: session,
    title: `Session ${session}`,
    workspace: "/w/api",
    project: "api",
    turn,
    time: `2025-06-18T16:00:0${turn % 10}Z`,
    role: "user",
    snippet: "the **okapi** step",
    snippet_text: "the okapi step",
    highlights: [[4, 9]],
    file: null,
    exit_code: null,
    status: null,
    compacted: false,
    deleted: false,
    score: 1,
    meaning_only: false,
    ...extra,
  };
}

function page(hits: SearchHit[], total: number | null): SearchResult {
  return { query: "okapi", scope: "/w/api", approximate: false, notes: [], total, hits };
}

const marked = (label: { label: string; highlights: [number, number][] }) => label.highlights.map(([a, b]) => label.label.slice(a, b));

void test("the sidecar's hits highlight exactly the matched words (the contract fixture)", () => {
  const result: SearchResult = searchFixture;
  assert.equal(result.total, 2);
  for (const found of result.hits) {
    assert.deepEqual(marked(hitLabel(found)), ["parse_config"]);
  }
  const status: TeamStatus = teamStatusFixture;
  assert.equal(status.configured, false);
  assert.match(status.reason ?? "", /deja team connect/);
});

void test("code-point offsets become UTF-16 ones past an emoji", () => {
  const text = "🦒 a giraffe";
  assert.deepEqual(utf16Ranges(text, [[4, 11]]), [[5, 12]]);
  assert.equal(text.slice(5, 12), "giraffe");
  assert.deepEqual(utf16Ranges(text, [[3, 3], [50, 60]]), []); // empty and out of range dropped
});

void test("a long snippet is one line cut so its first match shows, highlights moved with it", () => {
  const before = "word ".repeat(60);
  const text = `${before}\n\n  the   okapi\tstep ${"tail ".repeat(40)}`;
  const start = text.indexOf("okapi");
  const label = hitLabel({ snippet_text: text, highlights: [[start, start + 5]], file: null }, 80);
  assert.ok(label.label.length <= 80, String(label.label.length));
  assert.ok(label.label.startsWith("…") && label.label.endsWith("…"));
  assert.ok(!/\s\s|\n|\t/.test(label.label));
  assert.deepEqual(marked(label), ["okapi"]);
  const edited = "…/w/api/src/pricing.py TAX_RATE = 0.2 TAX_RATE = 0.2  # okapi";
  const at = edited.indexOf("okapi");
  const late = hitLabel({ snippet_text: edited, highlights: [[at, at + 5]], file: null });
  assert.equal(late.label, "…= 0.2 # okapi"); // from the word 16 characters before the match
  assert.equal(hitLabel({ snippet_text: "batch step 0 of the okapi importer", highlights: [[20, 25]], file: null }).label, "batch step 0 of the okapi importer");
  assert.deepEqual(marked(late), ["okapi"]);
  const short = hitLabel({ snippet_text: "", highlights: [], file: "/w/api/src/a.py" });
  assert.deepEqual(short, { label: "/w/api/src/a.py", highlights: [] });
});

void test("the snippet's own stars are text, not highlights", () => {
  const label = hitLabel({ snippet_text: "**bold** then okapi", highlights: [[14, 19]], file: null });
  assert.equal(label.label, "**bold** then okapi");
  assert.deepEqual(marked(label), ["okapi"]);
});

void test("pages add up: groups keep their order and grow, Load more until the total", () => {
  const pages = new SearchPages({ ...emptyFilters(), query: "okapi" });
  pages.add(page([hit(1, "aaaa1111"), hit(2, "bbbb2222"), hit(3, "aaaa1111")], 5));
  assert.deepEqual(pages.groups().map((g) => [g.sessionId, g.hits.length]), [["aaaa1111", 2], ["bbbb2222", 1]]);
  assert.equal(pages.hasMore, true);
  assert.equal(pages.nextOffset, 3);
  assert.equal(countText(pages), "5 hits: the first 3 in 2 sessions");
  pages.add(page([hit(3, "aaaa1111"), hit(4, "cccc3333"), hit(5, "bbbb2222")], 5)); // one repeated
  assert.deepEqual(pages.groups().map((g) => [g.sessionId, g.hits.length]), [["aaaa1111", 2], ["bbbb2222", 2], ["cccc3333", 1]]);
  assert.equal(pages.hits.length, 5);
  assert.equal(pages.hasMore, false);
  assert.equal(countText(pages), "5 hits in 3 sessions");
  assert.equal(groupDescription(pages.groups()[1], NOW), "2 hits · 2 days ago");
});

void test("team hits group by member and session, and say who", () => {
  const pages = new SearchPages({ ...emptyFilters("team"), query: "okapi" });
  pages.add(page([hit(1, "aaaa1111", { member: "Alice" }), hit(1, "aaaa1111", { member: "Bob" })], 2));
  assert.equal(pages.groups().length, 2);
  assert.ok(groupDescription(pages.groups()[1], NOW).endsWith("by Bob"));
  const none = new SearchPages({ ...emptyFilters("team"), query: "zzz" });
  none.add(page([], 0));
  assert.equal(countText(none), "No Continue session matches “zzz” in the team's history");
});

void test("filters become requests: empty ones left out, the team takes no file", () => {
  const filters = { ...emptyFilters(), query: "okapi", role: "edit", since: "7d", file: "src/a.py" };
  assert.deepEqual(searchParams(filters, 50), { query: "okapi", scope: "workspace", limit: 50, offset: 50, count: true, role: "edit", since: "7d", file: "src/a.py" });
  assert.deepEqual(searchParams({ ...emptyFilters(), query: "x" }, 0), { query: "x", scope: "workspace", limit: 50, offset: 0, count: true });
  assert.equal(searchParams({ ...filters, scope: "team" }, 0).file, undefined);
  assert.deepEqual(filesParams({ ...filters, scope: "all" }).params, { topic: "okapi", scope: "all", limit: 50 });
  assert.match(filesParams({ ...filters, scope: "team" }).refusal ?? "", /this machine's index/);
});

void test("a message from the webview is checked field by field", () => {
  const good = { query: "q", role: "", since: " 7d ", file: "", scope: "all", mode: "files" };
  assert.deepEqual(filtersOf(good), { ...good, since: "7d" });
  for (const bad of [null, "q", { ...good, role: "root" }, { ...good, scope: "everything" }, { ...good, mode: 3 }, { query: "q" }]) {
    assert.equal(filtersOf(bad), undefined, JSON.stringify(bad));
  }
});

void test("a file row says how much of the topic's work touched it", () => {
  const file: TouchedFile = {
    path: "/w/api/src/config.py",
    relative: "src/config.py",
    workspace: "/w/api",
    edits: 2,
    writes: 0,
    reads: 1,
    weight: 7,
    last: "2025-06-18T16:00:00Z",
    sessions: [{ session_id: "aaaa1111", title: "A", last_active: null, events: 3 }],
  };
  assert.deepEqual(fileRow(file, NOW), { label: "src/config.py", description: "2 edits · 1 read · 1 session · 2 days ago" });
  assert.equal(filesCountText(12, 5, 3, "config"), "12 files: the first 5, from 3 sessions about “config”");
  assert.equal(filesCountText(0, 0, 0, "config"), "No file touched by the sessions about “config”");
});

void test("the view contributes its container, both views and the group actions", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
    contributes: { viewsContainers: { activitybar: { id: string }[] }; views: Record<string, { id: string; type?: string }[]>; menus: Record<string, { command: string; when?: string }[]> };
  };
  assert.deepEqual(manifest.contributes.viewsContainers.activitybar.map((c) => c.id), ["deja-search"]);
  assert.deepEqual(manifest.contributes.views["deja-search"].map((v) => [v.id, v.type ?? "tree"]), [["deja.searchInput", "webview"], ["deja.searchResults", "tree"]]);
  const actions = manifest.contributes.menus["view/item/context"].filter((m) => m.when?.includes("deja.searchResults")).map((m) => m.command);
  for (const command of ["deja.vscode.openSession", "deja.vscode.forkSession", "deja.vscode.restoreContext", "deja.vscode.copySessionId"]) {
    assert.ok(actions.includes(command), command);
  }
});
