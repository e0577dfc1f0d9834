/** End to end in code-server: a file's past (List Past Edits, the hover) and the Deja log
 * channel, on the fixture plus a `cn`-titled session that wrote src/shipping.py (one line of it
 * changed since). Screenshots of what each shows go to media/ for the README. */

import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import type { Locator, Page } from "playwright-core";
import { TITLE_DISCOUNT, TITLE_ROUND, WRITTEN_DISCOUNT, WRITTEN_ROUND } from "./fixture";
import { hoverOn, launch, openFile, quickInput, reset, runCommand, scenarioTest, screenshot, sessionsCounted, sessionViewAt, sleep, until, type Editor } from "./harness";
import { ASKED_SHIPPING, CHANGED_LINE, UNCHANGED_LINE, writeShippingSession } from "./pastEditsFixture";

let editor: Editor;

function scenario(name: string, slug: string, body: () => Promise<void>): void {
  scenarioTest(name, slug, () => editor.page, body);
}

const flat = (text: string): string => text.replace(/\u00a0/g, " ");
const occurrences = (text: string, part: string): number => text.toLowerCase().split(part.toLowerCase()).length - 1;

interface Row {
  label: string;
  description: string;
  detail: string;
}

/** The quick pick's rows in the order shown (the list's `data-index`, not the DOM's order). */
async function rows(page: Page): Promise<Row[]> {
  const found = await quickInput(page).locator(".quick-input-list .monaco-list-row").evaluateAll((elements) =>
    elements
      .map((element) => ({
        index: Number(element.getAttribute("data-index")),
        // innerText: what is shown (a row's detail element keeps an earlier pick's text, hidden).
        label: element.querySelector<HTMLElement>(".label-name")?.innerText ?? "",
        description: element.querySelector<HTMLElement>(".label-description")?.innerText ?? "",
        detail: element.querySelector<HTMLElement>(".quick-input-list-label-meta")?.innerText ?? "",
      }))
      .sort((a, b) => a.index - b.index),
  );
  return found.map(({ label, description, detail }) => ({ label: flat(label).trim(), description: flat(description).trim(), detail: flat(detail).trim() }));
}

async function listPastEdits(page: Page, title: string): Promise<Locator> {
  await runCommand(page, "Deja: List Past Edits of This File");
  const pick = quickInput(page);
  await pick.locator(".quick-input-title", { hasText: title }).waitFor({ state: "visible", timeout: 15_000 });
  return pick;
}

void describe("A file's past and the Deja log (code-server)", { timeout: 240_000 }, () => {
  before(async () => {
    editor = await launch({ name: "past-edits", prepare: (fixture) => writeShippingSession(fixture) });
    await sessionsCounted(editor.page, 3);
  });

  after(async () => {
    if (editor !== undefined) {
      await screenshot(editor.page, "p99-last").catch(() => undefined);
      await editor.close();
    }
  });

  scenario("P1. List Past Edits holds every edit, write and read of the file, newest first, each said once; a pick peeks at the edit or opens the session there", "p1", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "pricing.py");
    await listPastEdits(page, "pricing.py: 3 edits (3 still in the file) · 1 read");
    const shown = await until("the four rows", async () => {
      const found = await rows(page);
      return found.length === 4 ? found : undefined;
    }, 10_000);
    assert.deepEqual(
      shown.map((row) => row.description),
      ["Edit · still at line 13 · turn 4", "Edit · still at line 11 · turn 1", "Edit · still at line 8 · turn 2", "Read · turn 1"],
      "newest first: tool, where its text is now, turn",
    );
    assert.deepEqual(
      shown.map((row) => row.label.replace(/ · .*$/, "")),
      [TITLE_DISCOUNT, TITLE_DISCOUNT, TITLE_ROUND, TITLE_ROUND],
    );
    assert.deepEqual(
      shown.map((row) => row.detail),
      ["“make it 10% off, not 15%”", "“add a WELCOME10 discount code to checkout”", "“price_with_tax returns too many decimals, round it to cents”", "“price_with_tax returns too many decimals, round it to cents”"],
    );
    for (const row of shown) {
      const all = `${row.label} ${row.description} ${row.detail}`;
      const title = row.label.startsWith(TITLE_DISCOUNT) ? TITLE_DISCOUNT : TITLE_ROUND;
      assert.equal(occurrences(all, title), 1, `the session named once: ${all}`);
      assert.match(row.label, / · \d+ days? ago$/, `when: ${row.label}`);
    }
    await page.mouse.move(700, 700); // below the list, over no text: no tooltip in the picture
    await sleep(400); // the quick pick fades in
    await screenshot(page, "03b-list-past-edits", { media: true });
    // An edit whose text stands: the peek, on that edit.
    await quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: "still at line 8" }).first().click();
    const peek = page.locator(".peekview-widget").first();
    await peek.waitFor({ state: "visible", timeout: 15_000 });
    const chosen = peek.locator(".ref-tree .monaco-list-row.selected, .ref-tree .monaco-list-row.focused").first();
    await until("the peek on the picked edit", async () => (flat(await chosen.innerText().catch(() => "")).includes(WRITTEN_ROUND) ? true : undefined), 10_000);
    assert.equal(await quickInput(page).isVisible(), false, "the list closed: nothing covers the peek");
    // A read: its session, at that turn.
    await reset(page);
    await listPastEdits(page, "pricing.py: 3 edits");
    await quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: "Read · turn 1" }).first().click();
    await page.locator(".tabs-container .tab.active", { hasText: TITLE_ROUND }).waitFor({ state: "visible", timeout: 15_000 });
    const session = await sessionViewAt(page, TITLE_ROUND, 1);
    assert.match((await session.locator("section.turn.marked").innerText()).trim(), /read \S*pricing\.py/, "the read's turn, its read row");
    // The row's diff button: what the edit replaced and wrote.
    await openFile(page, "pricing.py");
    await listPastEdits(page, "pricing.py: 3 edits");
    const newest = quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: "turn 4" }).first();
    await newest.hover();
    await newest.locator('.action-label[aria-label="Show what it replaced and wrote"]').first().click();
    const diffTab = page.locator(".tabs-container .tab.active", { hasText: TITLE_DISCOUNT });
    await diffTab.waitFor({ state: "visible", timeout: 15_000 });
    assert.match((await diffTab.textContent()) ?? "", /UTC/);
    await until("the diff's written side", async () =>
      ((await page.locator(".editor-group-container.active .monaco-diff-editor .modified .view-line", { hasText: WRITTEN_DISCOUNT }).count()) > 0 ? true : undefined),
    );
    await screenshot(page, "03c-diff-of-an-edit", { media: true });
    await reset(page);
  });

  scenario("P2. Hover and list on a file a cn session wrote: the title once, no request that repeats it, \"changed since\" on the line edited after", "p2", async () => {
    const { page } = editor;
    await reset(page);
    await openFile(page, "shipping.py");
    const changed = await hoverOn(page, CHANGED_LINE.trim(), "5.49", ASKED_SHIPPING);
    const changedText = flat(await changed.first().innerText());
    assert.equal(occurrences(changedText, ASKED_SHIPPING), 1, `the title once, the request that is the title not again: ${changedText}`);
    assert.match(changedText, /This line was changed since that session wrote it\./);
    assert.match(changedText, /Open session · Fork it here · File history/, "the links as before");
    await sleep(400); // the hover fades in
    await screenshot(page, "02b-hover-changed-since", { media: true });
    await reset(page);
    const unchanged = await hoverOn(page, UNCHANGED_LINE, "FREE_OVER", ASKED_SHIPPING);
    const unchangedText = flat(await unchanged.first().innerText());
    assert.doesNotMatch(unchangedText, /changed since/, "a line as the session wrote it");
    assert.equal(occurrences(unchangedText, ASKED_SHIPPING), 1);
    await reset(page);
    // The list says the same: the Write's text stands, changed since; no request under the title.
    await listPastEdits(page, "shipping.py: 1 edit (1 still in the file)");
    const [row] = await until("the Write's row", async () => {
      const found = await rows(page);
      return found.length === 1 ? found : undefined;
    }, 10_000);
    assert.equal(row.description, "Write · changed since, at line 1 · turn 1");
    assert.equal(row.detail, "");
    await reset(page);
    // A request that says more than the title is quoted once, under it.
    await openFile(page, "pricing.py");
    const round = await hoverOn(page, WRITTEN_ROUND, "round", TITLE_ROUND);
    const roundText = flat(await round.first().innerText());
    assert.equal(occurrences(roundText, TITLE_ROUND), 1);
    assert.equal(occurrences(roundText, "round it to cents"), 1, "the request, once");
    assert.doesNotMatch(roundText, /changed since/);
    await reset(page);
  });

  scenario("P3. One Deja log channel: the extension's and the language client's lines, each once, with VS Code's timestamps and levels", "p3", async () => {
    const { page } = editor;
    await reset(page);
    // A selection the server refuses: its warning reaches the channel through the client.
    await runCommand(page, "Deja: Restore Context");
    const input = quickInput(page).locator("input");
    await until("the Restore Context input box", async () => (((await input.getAttribute("placeholder")) ?? "").includes("1,3 · 1-4 · last") ? true : undefined), 10_000);
    await input.fill("99");
    await input.press("Enter");
    await page.locator(".notifications-toasts .notification-toast", { hasText: "Deja: cannot restore" }).first().waitFor({ state: "visible", timeout: 15_000 });
    await reset(page);
    await runCommand(page, "Deja: Show Log");
    await runCommand(page, "View: Toggle Maximized Panel");
    const lines = page.locator(".part.panel .monaco-editor .view-lines .view-line");
    const stamp = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[(trace|debug|info|warning|error)\] `;
    await until("the launch line and the client's warning in the Output panel", async () => {
      const texts = (await lines.allInnerTexts()).map(flat);
      // The panel wraps long lines: its first row holds the start of the launch line.
      const launchLine = texts.some((text) => new RegExp(`^${stamp}starting the server \\(from deja\\.server\\.python, Python `).test(text));
      const clientLine = texts.some((text) => new RegExp(`^${stamp.replace("(trace|debug|info|warning|error)", "warning")}deja: deja/restore: `).test(text));
      return launchLine && clientLine ? true : undefined;
    }, 15_000);
    await screenshot(page, "10-log", { media: true });
    await runCommand(page, "View: Toggle Maximized Panel");
    // The whole channel (the panel shows a window of it): every entry stamped once, by VS Code.
    const log = editor.dejaLog();
    const entries = log.split("\n").filter((line) => /^\d{4}-\d\d-\d\d /.test(line));
    assert.ok(entries.length >= 5, `some entries: ${log}`);
    for (const entry of entries) {
      assert.match(entry, new RegExp(`^${stamp}`), `VS Code's timestamp and level: ${entry}`);
      assert.doesNotMatch(entry, /\[(Info|Warn|Error|Debug|Trace) +- /, `no second, hand-made timestamp: ${entry}`);
    }
    assert.equal(entries.filter((entry) => /starting the server \(from deja\.server\.python, Python [^)]* at [^)]*\): /.test(entry)).length, 1, "the launch line once");
    assert.equal(entries.filter((entry) => entry.includes("the server is running: deja ")).length, 1, "the server's answer once");
  });
});
