/** "Deja: Open Session Rendered" end to end in code-server: the session view (a webview panel)
 * on sessions written into the fixture store — every kind of row with hostile text, a fork, a
 * session Continue compacts while the editor is open, and a generated 60 MB session, whose first
 * page is timed by the product itself (the view's `data-first-turn-ms`, from the command to the
 * first turn painted) and printed. */

import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { launch, readClipboard, reset, runCommand, scenarioTest, screenshot, until, type Editor } from "./harness";
import {
  addViewSessions,
  compactSession,
  COMPACT_SUMMARY,
  hugeSize,
  LATER_REQUEST,
  SESSION_VIEW,
  TITLE_COMPACT,
  TITLE_FORK,
  TITLE_HUGE,
  TITLE_PARENT,
  TITLE_VIEW,
} from "./sessionViewFixture";

let editor: Editor;

function scenario(name: string, slug: string, body: () => Promise<void>): void {
  scenarioTest(name, slug, () => editor.page, body);
}

function view(page: Page): FrameLocator {
  return page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
}

/** Closes every editor, then opens the session through the command and its session picker;
 * returns once its title shows in the view. */
async function openRendered(page: Page, title: string): Promise<FrameLocator> {
  await reset(page);
  await runCommand(page, "View: Close All Editors");
  await runCommand(page, "Deja: Open Session Rendered");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(title);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible", timeout: 15_000 });
  await input.press("Enter");
  const frame = view(page);
  await frame.locator("h1", { hasText: title }).waitFor({ state: "visible", timeout: 30_000 });
  return frame;
}

async function firstTurnMs(frame: FrameLocator): Promise<number> {
  return until("the view to report when its first turn showed", async () => {
    const value = await frame.locator("body").getAttribute("data-first-turn-ms");
    return value !== null && value !== "" ? Number(value) : undefined;
  }, 20_000);
}

void describe("Deja's session view (code-server)", { timeout: 600_000 }, () => {
  before(async () => {
    editor = await launch({ name: "sessionView", prepare: (fixture) => addViewSessions(fixture) });
    // Two fixture sessions and five of this file's, the 60 MB one included, indexed.
    await until(
      "the status bar to say `Deja: 7 sessions`",
      async () => ((await editor.page.locator(".statusbar-item", { hasText: "Deja: 7 sessions" }).count()) > 0 ? true : undefined),
      240_000,
      500,
    );
  });

  after(async () => {
    if (editor !== undefined) {
      await screenshot(editor.page, "sv-99-last").catch(() => undefined);
      await editor.close();
    }
  });

  scenario("S1. Turns in order, Markdown with highlighted code, hostile text as text, reasoning collapsed", "sv-01", async () => {
    const { page } = editor;
    const frame = await openRendered(page, TITLE_VIEW);
    const turns = await frame.locator("section.turn").evaluateAll((sections) => sections.map((s) => [s.getAttribute("data-turn"), s.querySelector(".who")?.textContent]));
    assert.deepEqual(turns.map(([n]) => Number(n)), [0, 1, 2, 3, 4, 5], "every turn, in order");
    assert.deepEqual(turns.slice(0, 2).map(([, who]) => who), ["User", "Assistant"]);
    const header = (await frame.locator(".session-head").innerText()).replace(/\s+/g, " ");
    assert.match(header, /started \d{4}-\d\d-\d\d \d\d:\d\d UTC · last active/);
    assert.match(header, /6 messages|\d+ messages/);
    // A session's `<script>` and `</details>` are text the user reads, never markup.
    const first = frame.locator("section.turn[data-turn='0']");
    assert.match(await first.innerText(), /<script>document\.title='pwned'<\/script><\/details><b>not bold<\/b>/);
    assert.equal(await first.locator("b, script").count(), 0);
    assert.equal(await frame.locator("script", { hasText: "pwned" }).count(), 0, "no script from the session");
    assert.notEqual(await frame.locator("html").evaluate(() => document.title), "pwned");
    // Fenced code is highlighted with the theme's colours.
    const keyword = frame.locator("section.turn[data-turn='1'] pre code .hljs-keyword", { hasText: "def" });
    await keyword.waitFor({ state: "visible" });
    const colours = await keyword.evaluate((k) => [getComputedStyle(k).color, getComputedStyle(k.closest("pre") ?? k).color]);
    assert.notEqual(colours[0], colours[1], "the keyword has its own colour");
    // Reasoning starts collapsed; its summary opens it.
    const reasoning = frame.locator("details.reasoning");
    assert.equal(await reasoning.evaluate((d) => (d as HTMLDetailsElement).open), false);
    assert.equal(await reasoning.getByText("The seed is probably not fixed").isVisible(), false);
    await reasoning.locator("summary").click();
    await reasoning.getByText("The seed is probably not fixed").waitFor({ state: "visible" });
  });

  scenario("S2. A command row opens to its output; an edit row is coloured and opens VS Code's diff editor", "sv-02", async () => {
    const { page } = editor;
    const frame = await openRendered(page, TITLE_VIEW);
    const command = frame.locator("details.tool.command");
    assert.equal((await command.locator("summary").innerText()).trim(), "$ make test-checkout → exit 3");
    const output = command.getByText("checkout: 1 failed, 4 passed");
    assert.equal(await output.isVisible(), false, "collapsed: the output is hidden");
    await command.locator("summary").focus();
    await page.keyboard.press("Enter"); // keyboard: a <summary> toggles its row
    await output.waitFor({ state: "visible" });
    assert.equal(await frame.locator(".tool.read").innerText().then((t) => t.trim().replace(/\s+/g, " ")), "read src/pricing.py");
    const edit = frame.locator("details.tool.edit");
    assert.match((await edit.locator("summary").innerText()).trim(), /^edited src\/pricing\.py \(\+1 −1\)$/);
    await edit.locator("summary").click();
    const [added, removed, text] = await edit.evaluate((d) => {
      const colour = (selector: string) => getComputedStyle(d.querySelector(selector) ?? d).color;
      return [colour(".diff .add"), colour(".diff .del"), getComputedStyle(document.body).color];
    });
    assert.notEqual(added, removed, "added and removed lines have different colours");
    assert.notEqual(added, text);
    assert.match(await edit.locator(".diff").innerText(), /- TAX_RATE = 0\.2\n\+ TAX_RATE = 0\.25/);
    await screenshot(page, "01b-session-rendered", { media: true });
    await edit.getByRole("button", { name: "Open diff" }).click();
    await page.locator(".monaco-diff-editor").first().waitFor({ state: "visible", timeout: 15_000 });
    await page.locator(".tabs-container .tab.active", { hasText: "pricing.py" }).waitFor({ state: "visible" });
    const sides = await until("both sides of the diff", async () => {
      const texts = (await page.locator(".monaco-diff-editor .view-lines").allInnerTexts()).map((side) => side.replace(/\u00a0/g, " ").trim());
      return texts.length === 2 && texts.every((side) => side !== "") ? texts : undefined;
    }, 10_000);
    assert.deepEqual(sides, ["TAX_RATE = 0.2", "TAX_RATE = 0.25"], "what the edit replaced, and what it wrote");
  });

  scenario("S3. Copy Id puts the id on the clipboard; Open as Text opens the session document", "sv-03", async () => {
    const { page } = editor;
    const frame = await openRendered(page, TITLE_VIEW);
    await frame.getByRole("button", { name: "Copy Id" }).click();
    await until("the id on the clipboard", async () => ((await readClipboard(page)) === SESSION_VIEW ? true : undefined), 10_000);
    await frame.getByRole("button", { name: "Open as Text" }).click();
    await page.locator(".tabs-container .tab.active", { hasText: SESSION_VIEW.slice(0, 8) }).waitFor({ state: "visible", timeout: 15_000 });
  });

  scenario("S4. A fork's inherited turns are folded under the parent's title", "sv-04", async () => {
    const { page } = editor;
    const frame = await openRendered(page, TITLE_FORK);
    const fold = frame.locator("details.inherited");
    assert.equal(await fold.count(), 1);
    assert.equal((await fold.locator("> summary").innerText()).trim(), `from ${TITLE_PARENT} (4 inherited turns)`);
    assert.equal(await fold.evaluate((d) => (d as HTMLDetailsElement).open), false, "folded");
    assert.equal(await frame.getByText("Here is a first sketch of the rules.").isVisible(), false);
    await frame.getByText("The EU variant applies reverse charge.").waitFor({ state: "visible" });
    assert.match(await frame.locator(".session-head").innerText(), new RegExp(`forked from ${TITLE_PARENT} \\(f1a2b3c4\\) at turn 4`));
    await fold.locator("> summary").click();
    await frame.getByText("Here is a first sketch of the rules.").waitFor({ state: "visible" });
  });

  scenario("S5. Turns Continue compacted away are marked as kept by Deja", "sv-05", async () => {
    const { page } = editor;
    compactSession(editor.fixture);
    const frame = await until("the compaction indexed and shown", async () => {
      const opened = await openRendered(page, TITLE_COMPACT);
      return (await opened.getByText(COMPACT_SUMMARY).count()) > 0 ? opened : undefined;
    }, 60_000, 1000);
    const marked = await frame.locator("section.turn.compacted").evaluateAll((s) => s.map((t) => Number(t.getAttribute("data-turn"))));
    assert.deepEqual(marked, [0, 1, 2, 3], "the four turns the file no longer holds");
    assert.match(await frame.locator("section.turn.compacted").first().innerText(), /kept by Deja — no longer in Continue's file/);
    assert.equal(await frame.locator("section.turn:not(.compacted) .compacted-mark").count(), 0);
    // Continue writes one more turn while the view is open: the pager offers it (and loads it
    // by itself when the end of the view is in sight).
    compactSession(editor.fixture, true);
    const later = frame.locator("section.turn", { hasText: LATER_REQUEST });
    await until("the turn written meanwhile", async () => {
      if ((await later.count()) > 0) {
        return true;
      }
      const pager = frame.locator("#more button", { hasText: "Load 1 more turn" });
      if ((await pager.count()) > 0) {
        await pager.click().catch(() => undefined);
      }
      return undefined;
    }, 30_000, 500);
    assert.match(await frame.locator("section.turn").last().innerText(), new RegExp(LATER_REQUEST), "after the others");
  });

  scenario("S6. A 60 MB session shows its first page at once and loads more on scroll", "sv-06", async () => {
    const { page } = editor;
    const size = hugeSize(editor.fixture);
    assert.ok(size >= 60 * 1024 * 1024, `the generated session is 60 MB (${size} bytes)`);
    const frame = await openRendered(page, TITLE_HUGE);
    await frame.locator("section.turn[data-turn='0']").waitFor({ state: "visible" });
    const ms = await firstTurnMs(frame);
    console.log(`session view: a ${(size / 1024 / 1024).toFixed(1)} MB session showed its first turn ${ms} ms after the command`);
    assert.ok(ms > 0);
    const end = Number(await frame.locator("body").getAttribute("data-end"));
    const total = Number(await frame.locator("body").getAttribute("data-total"));
    assert.ok(end < total, `a first page (${end} of ${total} turns), not the whole session`);
    await frame.locator("#more button").scrollIntoViewIfNeeded();
    await until("the next page", async () => (Number(await frame.locator("body").getAttribute("data-end")) > end ? true : undefined), 20_000);
    await frame.locator(`section.turn[data-turn='${end}']`).waitFor({ state: "attached" });
    assert.match(editor.dejaLog(), /session view: f1a2b3c4 showed turn 0 \d+ ms after the command/);
  });
});
