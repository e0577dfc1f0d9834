/** "Deja: Search in View" end to end in code-server: the Deja Search container (a webview with the
 * query and filters above the Results tree), hits grouped by session with the counts and the
 * matched words highlighted, a filter narrowing them, Load more adding the next page, a group's
 * Copy Id, a hit opening its session with the results still there, the Files mode opening a file,
 * the team scope disabled with its reason, and the editor's selection as the query. */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { PRICING_PY, type Fixture } from "./fixture";
import { activeEditor, launch, openFile, readClipboard, reset, runCommand, scenarioTest, screenshot, sessionViewAt, until, type Editor } from "./harness";

const SESSION_MANY = "f6a5b8c7-0e1d-4b2c-9d3e-5f6a7b8c9d06";
const TITLE_MANY = "Teach the okapi importer to batch";
const SESSION_FEW = "a7b6c9d8-1f2e-4c3d-8e4f-6a7b8c9d0e07";
const TITLE_FEW = "Okapi prices in the pricing module";
const WORD = "okapi";
// SESSION_MANY: 30 requests and 30 replies that say the word (60 hits), SESSION_FEW: 2 and an edit.
const MANY_TURNS = 30;
const TOTAL = 2 * MANY_TURNS + 3;

type Json = Record<string, unknown>;

function message(role: "user" | "assistant", content: string): Json {
  return { message: { role, content }, contextItems: [] };
}

function prepare(fixture: Fixture): void {
  const many: Json[] = [];
  for (let n = 0; n < MANY_TURNS; n++) {
    many.push(message("user", `batch step ${n} of the ${WORD} importer`), message("assistant", `Step ${n}: the ${WORD} rows are batched.`));
  }
  const pricing = join(fixture.workspace, "src", "pricing.py");
  const args = { file_path: pricing, old_string: "TAX_RATE = 0.2\n", new_string: "TAX_RATE = 0.2  # okapi\n" };
  const call = { id: "okapi-edit", type: "function", function: { name: "Edit", arguments: JSON.stringify(args) } };
  const edit = {
    message: { role: "assistant", content: "", toolCalls: [call] },
    contextItems: [],
    toolCallStates: [{ toolCallId: call.id, toolCall: call, status: "done", parsedArgs: args, output: [{ content: `Successfully edited ${pricing}`, name: "Tool Result", description: "Tool execution result" }] }],
  };
  const few = [message("user", `price the ${WORD} plush in the pricing module`), edit, message("assistant", `The ${WORD} plush has a price now.`)];
  for (const [id, title, history] of [[SESSION_MANY, TITLE_MANY, many], [SESSION_FEW, TITLE_FEW, few]] as const) {
    const document = { sessionId: id, title, workspaceDirectory: fixture.workspace, history };
    writeFileSync(join(fixture.store, "sessions", `${id}.json`), JSON.stringify(document, undefined, 2));
  }
  writeFileSync(pricing, PRICING_PY);
}

let editor: Editor;

function scenario(name: string, slug: string, body: () => Promise<void>): void {
  scenarioTest(name, slug, () => editor.page, body);
}

/** The form inside the webview view (its frame is laid over the sidebar, outside it; the content
 * is in a second frame). The extension's other webview, a session view panel, lies over the
 * editor area (or is hidden), never left of it. */
function form(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview[src*="extensionId=deja.deja"]:visible:left-of(.part.editor)').frameLocator("iframe#active-frame");
}

function results(page: Page): Locator {
  return page.locator(".part.sidebar .pane", { has: page.locator(".pane-header", { hasText: "Results" }) }).first();
}

function row(page: Page, text: string | RegExp): Locator {
  return results(page).locator(".monaco-list-row", { hasText: text }).first();
}

/** Folds a group (a click on its row toggles it), so what follows it is on screen. */
async function fold(page: Page, title: string): Promise<void> {
  const group = row(page, title);
  await group.waitFor({ state: "visible" });
  if ((await group.getAttribute("aria-expanded")) === "true") {
    await group.click();
  }
  await until(`${title} folded`, async () => ((await group.getAttribute("aria-expanded")) === "false" ? true : undefined), 5000);
}

async function counts(page: Page, wanted: string | RegExp): Promise<void> {
  const line = form(page).locator("#counts");
  await until(`the counts line to say ${String(wanted)}`, async () => {
    const text = (await line.textContent()) ?? "";
    return (typeof wanted === "string" ? text.includes(wanted) : wanted.test(text)) ? true : undefined;
  }, 20_000);
}

void describe("Deja: Search in View", () => {
  before(async () => {
    editor = await launch({ name: "search-view", prepare });
  });

  after(async () => {
    await editor?.close();
  });

  scenario("1. A query shows hits grouped by session with counts and the matched words highlighted; Load more adds the next page", "sv1", async () => {
    const { page } = editor;
    await reset(page);
    await page.locator(".statusbar-item", { hasText: "Deja: 4 sessions" }).waitFor({ state: "visible", timeout: 60_000 });
    await runCommand(page, "Deja: Search in View");
    const query = form(page).locator("#query");
    await query.waitFor({ state: "visible", timeout: 30_000 });
    await query.fill(WORD);
    await counts(page, `${TOTAL} hits: the first 50 in 2 sessions`);
    const many = row(page, TITLE_MANY);
    await many.waitFor({ state: "visible", timeout: 15_000 });
    // The matched word is highlighted in each hit's label, and only it.
    const marked = await results(page).locator(".monaco-list-row .label-name .highlight").allTextContents();
    assert.ok(marked.length >= 3, `highlights: ${JSON.stringify(marked)}`);
    assert.ok(marked.every((text) => text.toLowerCase() === WORD), JSON.stringify(marked));
    await screenshot(page, "02-search-view", { media: true });
    // Each group row says how many of the page's 50 hits are its own (the first folded away, so
    // the second is on screen).
    const own = async (title: string) => Number(/(\d+) hits?/.exec((await row(page, title).textContent()) ?? "")?.[1] ?? NaN);
    const first = await own(TITLE_MANY);
    await fold(page, TITLE_MANY);
    await row(page, TITLE_FEW).waitFor({ state: "visible" });
    assert.equal(first + (await own(TITLE_FEW)), 50);
    // Load more: the rest of the hits join the groups already there.
    const more = row(page, "Load more");
    await more.scrollIntoViewIfNeeded();
    await more.click();
    await counts(page, `${TOTAL} hits in 2 sessions`);
    await until("the group to hold every hit", async () => (/60 hits/.test((await row(page, TITLE_MANY).textContent()) ?? "") ? true : undefined), 10_000);
    await until("the other group's 3 hits", async () => (/3 hits/.test((await row(page, TITLE_FEW).textContent()) ?? "") ? true : undefined), 10_000);
    assert.equal(await results(page).locator(".monaco-list-row", { hasText: "Load more" }).count(), 0, "no Load more once all are shown");
  });

  scenario("2. A filter narrows the results; the team scope is offered only with a reason it cannot be", "sv2", async () => {
    const { page } = editor;
    await form(page).locator("#role").selectOption("edit");
    await counts(page, "1 hit in 1 session");
    await row(page, TITLE_FEW).waitFor({ state: "visible" });
    await until("the other session gone", async () => ((await results(page).locator(".monaco-list-row", { hasText: TITLE_MANY }).count()) === 0 ? true : undefined), 10_000);
    // The edit's label starts just before its match (the path before it is cut), so it shows.
    assert.match((await row(page, "= 0.2 # okapi").textContent()) ?? "", /…= 0\.2 # okapi/);
    // Enter sends at once (typing waits a moment), so no search is still on its way after.
    await form(page).locator("#since").fill("2000-01-01");
    await form(page).locator("#since").press("Enter");
    await counts(page, "1 hit in 1 session");
    await form(page).locator("#role").selectOption("");
    await counts(page, `${TOTAL} hits: the first 50 in 2 sessions`);
    await fold(page, TITLE_MANY);
    await row(page, "Load more").click();
    await counts(page, `${TOTAL} hits in 2 sessions`);
    const team = form(page).locator('#scope option[value="team"]');
    assert.equal(await team.isDisabled(), true, "no team connection: the team scope is disabled");
    assert.match((await form(page).locator("#team-reason").textContent()) ?? "", /deja team connect/);
  });

  scenario("3. A group's Copy Id; a hit opens its session at that turn and the results stay", "sv3", async () => {
    const { page } = editor;
    const group = row(page, TITLE_FEW); // the first group is folded (scenario 1)
    await group.hover();
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await group.locator('.actions [aria-label^="Copy Session Id"]').first().click();
    await until("the session id on the clipboard", async () => ((await readClipboard(page)) === SESSION_FEW ? true : undefined), 10_000);
    const hit = results(page).locator(".monaco-list-row", { hasText: "plush has a price now" }).first();
    await hit.click();
    await page.locator(".tabs-container .tab.active", { hasText: TITLE_FEW.slice(0, 20) }).waitFor({ state: "visible", timeout: 15_000 });
    // The session rendered, the hit's turn marked.
    const session = await sessionViewAt(page, TITLE_FEW, 2);
    assert.match(await session.locator("section.turn.marked").innerText(), /plush has a price now/);
    // Opening it kept the view's results and its counts.
    await row(page, TITLE_MANY).waitFor({ state: "visible" });
    await counts(page, `${TOTAL} hits in 2 sessions`);
    assert.equal(await form(page).locator("#query").inputValue(), WORD);
  });

  scenario("4. The Files mode lists the files the topic touched, each opening the file", "sv4", async () => {
    const { page } = editor;
    await form(page).locator("#mode-files").click();
    await counts(page, /1 file, from 2 sessions about/);
    const file = row(page, "src/pricing.py");
    await file.waitFor({ state: "visible", timeout: 15_000 });
    assert.match((await file.textContent()) ?? "", /1 edit/);
    await file.click();
    await page.locator('.tabs-container .tab.active[data-resource-name="pricing.py"]').waitFor({ state: "visible", timeout: 15_000 });
    await form(page).locator("#mode-hits").click();
    await counts(page, `${TOTAL} hits`);
  });

  scenario("5. Search in View takes the editor's selection as the query", "sv5", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "pricing.py");
    const word = activeEditor(page).locator(".view-line span span", { hasText: "apply_discount" }).first();
    await word.dblclick();
    // The palette without the Escape runCommand presses first (Escape would clear the selection).
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(">Deja: Search in View");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Deja: Search in View" }).first().waitFor({ state: "visible" });
    await input.press("Enter");
    await until("the selection in the query box", async () => ((await form(page).locator("#query").inputValue()) === "apply_discount" ? true : undefined), 20_000);
    await counts(page, /hit/);
    // The keyboard reaches each filter in order from the query box.
    await form(page).locator("#query").focus();
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      order.push(await form(page).locator(":focus").getAttribute("id").catch(() => "") ?? "");
    }
    assert.deepEqual(order, ["role", "since", "file", "scope"]);
  });

  scenario("6. The view keeps its query and results when another view was shown in between", "sv6", async () => {
    const { page } = editor;
    await reset(page);
    await runCommand(page, "View: Show Explorer");
    await results(page).waitFor({ state: "hidden" });
    await runCommand(page, "Deja: Search in View");
    await until("the query kept", async () => ((await form(page).locator("#query").inputValue()) === "apply_discount" ? true : undefined), 20_000);
    await counts(page, /hit/);
    assert.ok((await results(page).locator(".monaco-list-row").count()) > 0, "the results are still there");
  });
});
