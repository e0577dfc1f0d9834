/** End to end in a real VS Code (code-server 4.139.1) with the packaged extension, the project's
 * sidecar (`.venv/bin/python -m deja serve`) and a fixture store. One editor for all scenarios,
 * in order; each saves a screenshot to test-results/vscode-e2e/. */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import {
  ASKED_INVENTORY,
  INVENTORY_PY,
  SESSION_ROUND,
  TITLE_DISCOUNT,
  TITLE_ELSEWHERE,
  TITLE_ROUND,
  TOOL_TURN,
  TITLE_LATE,
  TOOL_WORD,
  writeLateSession,
  WRITTEN_INVENTORY,
  WRITTEN_ROUND,
} from "./fixture";
import { activeEditor, cursorLine, editUserSettings, hoverOn, launch, openFile, quickInput, readClipboard, readCnLog, readJsonLines, reset, runCommand, scenarioTest, screenshot, sessionsCounted, sessionViewAt, sleep, until, type Editor } from "./harness";

let editor: Editor;

/** A test that leaves `<slug>-FAILED.png` behind when it fails. */
function scenario(name: string, slug: string, body: () => Promise<void>): void {
  scenarioTest(name, slug, () => editor.page, body);
}

void describe("Deja in VS Code (code-server)", { timeout: 300_000 }, () => {
  before(async () => {
    editor = await launch();
    await sessionsCounted(editor.page, 2);
  });

  after(async () => {
    if (editor !== undefined) {
      await screenshot(editor.page, "99-last").catch(() => undefined);
      await editor.close();
    }
  });

  scenario("1. Search History finds a session by a word from a tool call and opens it at that turn", "01", async () => {
    const { page } = editor;
    await runCommand(page, "Deja: Search History");
    const input = quickInput(page).locator("input");
    await quickInput(page).locator(".quick-input-title", { hasText: "Deja: Search History" }).waitFor({ state: "visible" });
    await input.pressSequentially(TOOL_WORD, { delay: 20 });
    const row = quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: TITLE_ROUND }).first();
    await row.waitFor({ state: "visible", timeout: 15_000 });
    const rowText = (await row.textContent()) ?? "";
    assert.match(rowText, /shop/, "the row names the project");
    assert.match(rowText, /command/, "the row carries the role badge");
    assert.match(rowText, /zanzibar/, "the row shows the snippet");
    // The badges lead the description, and the short label leaves room for all of it.
    const description = row.locator(".label-description").first();
    assert.match((await description.textContent()) ?? "", new RegExp(`^command · turn ${TOOL_TURN} · shop · `));
    assert.ok(await description.evaluate((element) => element.scrollWidth <= element.clientWidth), "the badges are not cut");
    await screenshot(page, "01-search-quickpick", { media: true });
    // Another workspace's session is found only once the button (Alt+S) switches to all workspaces.
    await input.fill("braintree_invoice");
    await quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: "No Continue session matches" }).waitFor({ state: "visible", timeout: 15_000 });
    await input.press("Alt+S");
    await quickInput(page).locator(".quick-input-title", { hasText: "all workspaces" }).waitFor({ state: "visible" });
    await quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: TITLE_ELSEWHERE }).first().waitFor({ state: "visible", timeout: 15_000 });
    await quickInput(page).locator(".quick-input-titlebar .quick-input-right-action-bar .action-label").first().click(); // the scope button
    await quickInput(page).locator(".quick-input-title", { hasText: "this workspace" }).waitFor({ state: "visible" });
    await input.fill(TOOL_WORD);
    await row.waitFor({ state: "visible", timeout: 15_000 });
    await input.press("Enter");
    // The pick opens the session rendered, at the matching turn: marked, in sight, focused.
    await page.locator(".tabs-container .tab.active", { hasText: TITLE_ROUND }).waitFor({ state: "visible", timeout: 15_000 });
    const view = await sessionViewAt(page, TITLE_ROUND, TOOL_TURN);
    const marked = (await view.locator("section.turn.marked").innerText()).replace(/\u00a0/g, " ");
    assert.match(marked, new RegExp(`\\$ grep -rn ${TOOL_WORD}`), "the marked turn is the tool call the word came from");
    // Rendered, not source: no `**` or fence markers in what the user reads.
    assert.doesNotMatch(await view.locator("body").innerText(), /```|\*\*User\*\*/);
    // Its header carries the session actions.
    for (const label of ["Reopen in Continue", "Fork Session Here", "Restore into Continue", "Copy Id", "Open as Text"]) {
      await view.getByRole("button", { name: label }).waitFor({ state: "visible" });
    }
    await screenshot(page, "01-search-opens-session-at-turn", { media: true });
    // The raw transcript is one action away: Open as Text, at the same turn.
    await view.getByRole("button", { name: "Open as Text" }).click();
    const tab = page.locator(".tabs-container .tab.active", { hasText: SESSION_ROUND.slice(0, 8) });
    await tab.waitFor({ state: "visible", timeout: 15_000 });
    assert.match((await tab.textContent()) ?? "", new RegExp(TITLE_ROUND));
    const current = await until("the cursor on the matching turn", async () => {
      const line = await cursorLine(page);
      return line.startsWith(`## Turn ${TOOL_TURN}`) ? line : undefined;
    }, 10_000);
    assert.match(current, new RegExp(`^## Turn ${TOOL_TURN} ·`));
    // The document's title bar carries the session actions.
    for (const label of ["Reopen in Continue", "Fork Session Here", "Copy Session Id"]) {
      await page.locator(`.editor-group-container.active .editor-actions [aria-label^="${label}"]`).first().waitFor({ state: "visible" });
    }
  });

  scenario("1b. Open Session Rendered, from the session document, shows the session view at the document's turn", "01b", async () => {
    const { page } = editor;
    await reset(page);
    // Scenario 1 left the session document active, the cursor on the matching turn.
    await page.locator('.editor-group-container.active .editor-actions [aria-label^="Open Session Rendered"]').first().click();
    // The turn the document was at is marked, scrolled to and focused.
    const view = await sessionViewAt(page, TITLE_ROUND, TOOL_TURN);
    const marked = view.locator("section.turn.marked");
    assert.ok(await marked.evaluate((turn) => turn.getBoundingClientRect().top >= 0 && turn.getBoundingClientRect().bottom <= window.innerHeight), "the marked turn is in sight");
    const text = (await view.locator("body").innerText()) ?? "";
    assert.doesNotMatch(text, /```|\*\*User\*\*/);
    assert.match(text, new RegExp(`\\$ grep -rn ${TOOL_WORD}`));
    await screenshot(page, "01b-session-view-at-turn");
    await reset(page);
  });

  scenario("2. Hovering a line a fixture edit wrote shows the session title and the diff", "02", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "pricing.py");
    const hover = await hoverOn(page, WRITTEN_ROUND, "round", TITLE_ROUND);
    const text = (await hover.first().innerText()).replace(/\u00a0/g, " ");
    assert.match(text, new RegExp(TITLE_ROUND), "the hover names the session");
    assert.match(text, /return total/, "the diff shows the replaced text");
    assert.match(text, /return round\(total, 2\)/, "the diff shows the written text");
    assert.match(text, /Open session/, "the hover links to the session");
    await sleep(400); // the hover fades in
    await screenshot(page, "02-hover", { media: true });
    // Its links are trusted command links: "Open session" opens the session at the edit's turn.
    await hover.first().locator("a", { hasText: "Open session" }).click();
    await page.locator(".tabs-container .tab.active", { hasText: TITLE_ROUND }).waitFor({ state: "visible", timeout: 15_000 });
    const view = await sessionViewAt(page, TITLE_ROUND, 2);
    assert.match(await view.locator("section.turn.marked").innerText(), /edited \S*pricing\.py/, "the edit's turn, its edit row");
  });

  scenario("3. Show Past Edits opens the peek on the edit nearest the cursor, the code lens too", "03", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "pricing.py");
    // The cursor on `TAX_RATE = 0.2`, in no edit: the nearest is the rounding edit, 5 lines down.
    await activeEditor(page).locator(".view-line", { hasText: "TAX_RATE = 0.2" }).first().click();
    await runCommand(page, "Deja: Show Past Edits to This File");
    // The peek lists the places whose written lines still stand (3: the first discount edit's
    // `def` and `if` lines are still its own), and nothing covers it.
    const peek = page.locator(".peekview-widget").first();
    await peek.waitFor({ state: "visible", timeout: 15_000 });
    const references = peek.locator(".ref-tree .monaco-list-row");
    await until("three peek locations", async () => ((await references.count()) === 3 ? true : undefined), 10_000);
    assert.match((await peek.locator(".peekview-title").innerText()).replace(/\u00a0/g, " "), /\(3\)/, "the peek's title counts 3 locations");
    const peekText = (await peek.locator(".ref-tree").innerText()).replace(/\u00a0/g, " ");
    assert.match(peekText, /return round\(total, 2\)/);
    assert.match(peekText, /return amount \* 0\.9/);
    const chosen = peek.locator(".ref-tree .monaco-list-row.selected, .ref-tree .monaco-list-row.focused").first();
    await until("the peek on the nearest edit", async () =>
      (((await chosen.innerText().catch(() => "")).replace(/\u00a0/g, " ")).includes(WRITTEN_ROUND) ? true : undefined), 10_000);
    assert.equal(await quickInput(page).isVisible(), false, "no quick pick covers the peek");
    await screenshot(page, "03-peek-and-edits", { media: true });
    // The list (List Past Edits) and its picks: pastEdits.test.ts.
    await reset(page);
    // The code lens at the top of the file runs Show Past Edits: the peek (scrolled to the very
    // top: the lenses above the edited lines may have scrolled it a little).
    await openFile(page, "pricing.py");
    await page.keyboard.press("Control+Home");
    const area = await activeEditor(page).locator(".view-lines").boundingBox();
    if (area !== null) {
      await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
      await page.mouse.wheel(0, -2000);
    }
    await activeEditor(page).locator(".contentWidgets .codelens-decoration a", { hasText: "2 Continue sessions touched this file" }).first().click();
    await page.locator(".peekview-widget").first().waitFor({ state: "visible", timeout: 15_000 });
    await reset(page);
  });

  scenario("4. Fork Session Here runs `cn --fork <id>` in the session's folder", "04", async () => {
    const { page } = editor;
    await reset(page);
    // From the session document's title bar (opened by scenario 1).
    await page.locator(".tabs-container .tab", { hasText: SESSION_ROUND.slice(0, 8) }).first().click();
    await page.locator('.editor-group-container.active .editor-actions [aria-label^="Fork Session Here"]').first().click();
    const calls = await until("the stub cn to be run", () => {
      const found = readCnLog(editor.cnLog);
      return found.length > 0 ? found : undefined;
    }, 30_000);
    assert.deepEqual(calls[0].argv, ["--fork", SESSION_ROUND]);
    assert.equal(calls[0].cwd, editor.fixture.workspace);
    await page.locator(".notifications-toasts", { hasText: "starts a new Continue session" }).first().waitFor({ state: "visible", timeout: 10_000 });
    await until("the fork terminal named after the session", async () =>
      ((await page.locator(".terminal-tabs-entry, .single-terminal-tab, .terminal-tab, [aria-label*='Fork: Round prices']", { hasText: "Fork" }).count()) > 0 ||
      (await page.locator("[aria-label*='Fork: Round prices']").count()) > 0
        ? true
        : undefined), 10_000);
    await screenshot(page, "04-fork-terminal", { media: true });
    // Done with the terminal: a focused terminal takes later keystrokes (Escape, F1) for its
    // shell, so hide the panel as a user would.
    await page.locator('.part.panel .action-label[aria-label^="Hide Panel"]').first().click();
    await until("the panel hidden", async () => ((await page.locator(".part.panel .xterm").first().isVisible()) ? undefined : true), 10_000);
  });

  scenario("5. The Deja History view lists the workspace's sessions", "05", async () => {
    const { page } = editor;
    await reset(page);
    // "Explorer: Focus on Deja History View" here (the view is in the Explorer without Continue).
    await runCommand(page, "Focus on Deja History View");
    const view = page.locator(".pane", { has: page.locator(".pane-header", { hasText: "Deja History" }) }).first();
    await view.waitFor({ state: "visible" });
    // Room for the view: fold the Explorer's folder section.
    const folders = page.locator(".part.sidebar .pane-header.expanded", { hasText: "shop" }).first();
    if ((await folders.count()) > 0) {
      await folders.click();
    }
    const rows = view.locator(".monaco-list-row");
    await until("the two sessions of this workspace", async () => ((await rows.count()) >= 2 ? true : undefined), 15_000);
    const labels = await rows.allInnerTexts();
    assert.match(labels[0], new RegExp(TITLE_DISCOUNT), "newest first");
    assert.match(labels[1], new RegExp(TITLE_ROUND));
    assert.ok(!labels.some((label) => label.includes(TITLE_ELSEWHERE)), "only this workspace's sessions");
    // A session expands to its turns.
    await rows.nth(1).locator(".monaco-tl-twistie").click();
    await until("the turns of the session", async () => ((await view.locator(".monaco-list-row", { hasText: "Turn 0 · price_with_tax" }).count()) > 0 ? true : undefined), 10_000);
    await screenshot(page, "05-history-view", { media: true });
    // A turn's row opens the session rendered at that turn.
    await view.locator(".monaco-list-row", { hasText: "Turn 0 · price_with_tax" }).first().click();
    const session = await sessionViewAt(page, TITLE_ROUND, 0);
    assert.match(await session.locator("section.turn.marked").innerText(), /price_with_tax/);
    // Done with it: close the view's tab (a webview keeps the focus the palette needs later).
    await page.locator(".tabs-container .tab.active .tab-actions .action-label").first().click();
    await until("the session view closed", async () =>
      ((await page.locator(".tabs-container .tab", { hasText: TITLE_ROUND }).count()) <= 1 ? true : undefined), 10_000);
    // Back to the tree (the view has the focus; a quick pick closed later would hand it on).
    await runCommand(page, "Focus on Deja History View");
    // A session Continue writes now reaches the view and the status bar (deja/indexChanged).
    writeLateSession(editor.fixture.store, editor.fixture.workspace);
    await view.locator(".monaco-list-row", { hasText: TITLE_LATE }).first().waitFor({ state: "visible", timeout: 15_000 });
    assert.match((await rows.first().innerText()), new RegExp(TITLE_LATE), "the new session comes first");
    const status = page.locator(".statusbar-item", { hasText: "Deja: 3 sessions" }).first();
    await status.waitFor({ state: "visible", timeout: 10_000 });
    await screenshot(page, "05-history-view-refreshed");
    // The status bar item opens Search History.
    await status.click();
    await quickInput(page).locator(".quick-input-title", { hasText: "Deja: Search History" }).waitFor({ state: "visible" });
    await reset(page);
  });

  scenario("5b. Restore Context lists sessions, restores the last one read-only, and Copy copies it", "05b", async () => {
    const { page } = editor;
    await reset(page);
    const copied = (what: string) => page.locator(".statusbar-item", { hasText: `Deja: copied ${what} to the clipboard` }).first();
    const ask = async (selection: string) => {
      await runCommand(page, "Deja: Restore Context");
      const input = quickInput(page).locator("input");
      await input.waitFor({ state: "visible" });
      await until("the Restore Context input box", async () =>
        ((await input.getAttribute("placeholder")) ?? "").includes("1,3 · 1-4 · last") ? true : undefined, 10_000);
      await input.fill(selection);
      await input.press("Enter");
    };
    // Empty: the numbered listing.
    await ask("");
    await page.locator(".tabs-container .tab.active", { hasText: "Sessions to restore" }).waitFor({ state: "visible", timeout: 15_000 });
    await activeEditor(page).locator(".view-line", { hasText: "newest first" }).first().waitFor({ state: "visible", timeout: 10_000 });
    await activeEditor(page).locator(".view-line", { hasText: "round it to cents" }).first().waitFor({ state: "visible" });
    await page.locator('.editor-group-container.active .editor-actions [aria-label^="Copy Restored Context"]').first().click();
    await copied("the session listing").waitFor({ state: "visible", timeout: 10_000 });
    // `last`: the transcript, with the Copy button in the title bar.
    await ask("last");
    await page.locator(".tabs-container .tab.active", { hasText: "Restored context (last)" }).waitFor({ state: "visible", timeout: 15_000 });
    await activeEditor(page).locator(".view-line", { hasText: "# deja-restore-format: 1" }).first().waitFor({ state: "visible", timeout: 10_000 });
    // The document is the transcript as `deja restore` prints it: no fence, first line first.
    const firstLine = await activeEditor(page).evaluate((element) => {
      const lines = Array.from(element.querySelectorAll<HTMLElement>(".view-lines .view-line"));
      lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return (lines[0]?.textContent ?? "").replace(/\u00a0/g, " ");
    });
    assert.equal(firstLine, "# deja-restore-format: 1");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+C");
    const selected = await until("Select All + Copy to fill the clipboard", async () => {
      const text = await readClipboard(page);
      return text.startsWith("# deja-restore-format: 1") ? text : undefined;
    }, 10_000);
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await page.locator('.editor-group-container.active .editor-actions [aria-label^="Copy Restored Context"]').first().click();
    await copied("the restored context").waitFor({ state: "visible", timeout: 10_000 });
    const byButton = await readClipboard(page);
    assert.ok(!byButton.includes("```"), "no fence in what Copy copies");
    assert.equal(byButton, selected, "Copy gives the bytes the document shows");
    await screenshot(page, "05b-restore-context", { media: true });
    // A selection the server cannot read: one error with its text.
    await ask("99");
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "Deja: cannot restore" });
    await toast.first().waitFor({ state: "visible", timeout: 15_000 });
    await sleep(500);
    assert.equal(await toast.count(), 1, "one error message");
    await reset(page);
  });

  scenario("8. A file a past Write created, edited in the editor and not saved, still hovers with the Write's session", "08", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "inventory.py");
    const lines = activeEditor(page).locator(".view-line");
    // Unsaved changes above and below the untouched line: a new first line, a changed last one.
    await lines.filter({ hasText: "Stock levels for the shop" }).first().click();
    await page.keyboard.press("Home");
    await page.keyboard.type("# a note typed in the editor\n");
    await lines.filter({ hasText: "> 0" }).first().click();
    await page.keyboard.press("End");
    await page.keyboard.type("  # and one changed by hand");
    await lines.filter({ hasText: "# and one changed by hand" }).first().waitFor({ state: "visible" });
    const hover = await hoverOn(page, WRITTEN_INVENTORY, "count", TITLE_DISCOUNT);
    const text = (await hover.first().innerText()).replace(/\u00a0/g, " ");
    assert.match(text, new RegExp(TITLE_DISCOUNT), "the hover names the Write's session");
    assert.match(text, new RegExp(ASKED_INVENTORY), "and the request behind it");
    assert.match(text, /Open session/);
    await sleep(400); // the hover fades in
    await screenshot(page, "08-hover-on-unsaved-edits");
    assert.equal(readFileSync(join(editor.fixture.workspace, "src", "inventory.py"), "utf8"), INVENTORY_PY, "the edits were never saved");
    await reset(page);
    await runCommand(page, "File: Revert File");
    await lines.filter({ hasText: "# a note typed in the editor" }).first().waitFor({ state: "detached", timeout: 10_000 });
  });
});

void describe("Deja next to Continue (a stand-in Continue extension)", { timeout: 180_000 }, () => {
  before(async () => {
    editor = await launch({ withContinue: true });
    await sessionsCounted(editor.page, 2);
  });

  after(async () => {
    if (editor !== undefined) {
      await editor.close();
    }
  });

  scenario("6. The history view sits in Continue's container; Reopen in Continue loads the session there", "06", async () => {
    const { page } = editor;
    await reset(page);
    await runCommand(page, "Continue: Focus on Deja History View");
    await page.locator(".part.sidebar .composite.title", { hasText: /continue/i }).first().waitFor({ state: "visible" });
    const view = page.locator(".part.sidebar .pane", { has: page.locator(".pane-header", { hasText: "Deja History" }) }).first();
    const row = view.locator(".monaco-list-row", { hasText: TITLE_ROUND }).first();
    await row.waitFor({ state: "visible", timeout: 15_000 });
    assert.equal(await page.locator(".part.sidebar .pane-header", { hasText: "Deja History" }).count(), 1, "one Deja History view");
    // The inline action on the session's row.
    await row.hover();
    await row.locator('.actions [aria-label^="Reopen in Continue"]').first().click();
    const calls = await until("Continue's commands", () => {
      const found = readJsonLines<{ command: string; args: unknown[] }>(editor.continueLog);
      return found.some((call) => call.command === "continue.focusContinueSessionId") ? found : undefined;
    }, 20_000);
    assert.deepEqual(calls[0], { command: "continue.navigateTo", args: ["/", false] });
    assert.deepEqual(calls.find((call) => call.command === "continue.focusContinueSessionId")?.args, [SESSION_ROUND]);
    await screenshot(page, "06-history-in-continue-and-reopen", { media: true });
  });

  scenario("7. A deja.server.python that cannot run: one notification naming the fix; fixing the setting restarts the server", "07", async () => {
    const { page } = editor;
    await reset(page);
    const settings = JSON.parse(readFileSync(editor.userSettings, "utf8")) as Record<string, unknown>;
    // Any Python 3.11 runs the bundled server now: the setting that fails names no Python at all.
    const python = "/nonexistent/bin/python3";
    await editUserSettings(page, editor.userSettings, { ...settings, "deja.server.python": python });
    // What a user sees: a toast on screen (not a notification folded into the centre).
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "Deja:" });
    await toast.first().waitFor({ state: "visible", timeout: 30_000 });
    const text = await toast.first().innerText();
    assert.match(text, /deja\.server\.python/, "the notification names the setting to fix");
    assert.match(text, /was not found/);
    await sleep(2000);
    assert.equal(await toast.count(), 1, "one notification, not one per failure");
    await screenshot(page, "07-server-cannot-start", { media: true });
    // Escape hides toasts (a user closing something else can do it unawares); the status bar item
    // brings the notification back. Escape goes to whatever holds the focus first (an editor's
    // widget, a closing settings tab), so it is pressed again until the toast is gone, as a user would.
    await until("the toast hidden by Escape", async () => {
      await page.keyboard.press("Escape");
      return (await toast.count()) === 0 ? true : undefined;
    }, 20_000, 500);
    const status = page.locator(".statusbar-item", { hasText: "Deja" }).first();
    await status.click();
    await toast.first().waitFor({ state: "visible", timeout: 10_000 });
    assert.match(await toast.first().innerText(), /deja\.server\.python/, "the status bar item shows the same notification again");
    await reset(page);
    await editUserSettings(page, editor.userSettings, settings);
    await sessionsCounted(page, 2);
  });
});
