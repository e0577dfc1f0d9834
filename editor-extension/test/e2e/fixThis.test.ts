/** "Deja: What Fixed This Before?" end to end in code-server: from a selection in an editor, and
 * from a command that fails in the integrated terminal (bash with VS Code's shell integration),
 * where the answer is offered by a quiet status bar item — no pop-up — that a setting turns off.
 * The store holds a session where the same error was met, the file edited, and the command then
 * passed; the user meets it again with their own path and line number. */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import type { Fixture } from "./fixture";
import { activeEditor, editUserSettings, launch, openFile, reset, runCommand, scenarioTest, screenshot, sessionsCounted, sleep, until, type Editor } from "./harness";

const SESSION_FIXED = "e5f4a7b6-9d0c-4a1b-8c2d-4e5f6a7b8c05";
const TITLE_FIXED = "Make the price checker run";
const COMMAND = "python3 tools/check_prices.py";
const MODULE = "pricing_rules_v2";
const ERROR_LINE = `ModuleNotFoundError: No module named '${MODULE}'`;

type Json = Record<string, unknown>;

function bash(id: string, command: string, output: string, status: string): Json {
  const call = { id, type: "function", function: { name: "Bash", arguments: JSON.stringify({ command }) } };
  const result = [{ content: output, name: "Tool Result", description: "Tool execution result" }];
  return {
    message: { role: "assistant", content: "", toolCalls: [call] },
    contextItems: [],
    toolCallStates: [{ toolCallId: id, toolCall: call, status, parsedArgs: { command }, output: result }],
  };
}

function editCall(id: string, path: string): Json {
  const args = { file_path: path, old_string: `import ${MODULE}\n`, new_string: "import json\n" };
  const call = { id, type: "function", function: { name: "Edit", arguments: JSON.stringify(args) } };
  const result = [{ content: `Successfully edited ${path}`, name: "Tool Result", description: "Tool execution result" }];
  return {
    message: { role: "assistant", content: "", toolCalls: [call] },
    contextItems: [],
    toolCallStates: [{ toolCallId: id, toolCall: call, status: "done", parsedArgs: args, output: result }],
  };
}

/** The past session (its own machine's path) and the workspace's script that fails the same way. */
function prepare(fixture: Fixture): void {
  const checker = join(fixture.workspace, "tools", "check_prices.py");
  mkdirSync(join(fixture.workspace, "tools"), { recursive: true });
  writeFileSync(checker, `"""Checks the price table."""\n\nimport ${MODULE}\n\nprint("prices ok")\n`);
  const failed =
    "Error executing tool Bash: Error (exit code 1): Traceback (most recent call last):\n" +
    `  File "/home/dev/shop/tools/check_prices.py", line 1, in <module>\n    import ${MODULE}\n${ERROR_LINE}\n`;
  const history = [
    { message: { role: "user", content: "make the price checker run" }, contextItems: [] },
    bash("fix-1", COMMAND, failed, "errored"),
    editCall("fix-2", checker),
    bash("fix-3", COMMAND, "prices ok\n", "done"),
    { message: { role: "assistant", content: "The checker runs now." }, contextItems: [] },
  ];
  const document = { sessionId: SESSION_FIXED, title: TITLE_FIXED, workspaceDirectory: fixture.workspace, history };
  writeFileSync(join(fixture.store, "sessions", `${SESSION_FIXED}.json`), JSON.stringify(document, undefined, 2));
  writeFileSync(join(fixture.workspace, "errors.log"), `Traceback (most recent call last):\n  File "/srv/ci/build-4711/tools/check_prices.py", line 3\n${ERROR_LINE}\n`);
}

// Bash with VS Code's shell integration (the harness's default terminal is sh without it).
const TERMINAL_SETTINGS = {
  "terminal.integrated.shellIntegration.enabled": true,
  "terminal.integrated.defaultProfile.linux": "bash",
  "terminal.integrated.profiles.linux": { bash: { path: "/bin/bash" } },
};

let editor: Editor;

function scenario(name: string, slug: string, body: () => Promise<void>): void {
  scenarioTest(name, slug, () => editor.page, body);
}

async function answerShows(page: Editor["page"], tab: string): Promise<void> {
  await page.locator(".tabs-container .tab.active", { hasText: tab }).waitFor({ state: "visible", timeout: 20_000 });
  for (const line of [`failed: \`${COMMAND}\` (exit 1)`, "edited tools/check_prices.py (turn 2)", `then \`${COMMAND}\` (turn 3) ran without the error`]) {
    await activeEditor(page).locator(".view-line", { hasText: line }).first().waitFor({ state: "visible", timeout: 10_000 });
  }
}

void describe("Deja: What Fixed This Before? (code-server)", { timeout: 300_000 }, () => {
  before(async () => {
    editor = await launch({ settings: TERMINAL_SETTINGS, prepare });
    await sessionsCounted(editor.page, 3);
  });

  after(async () => {
    if (editor !== undefined) {
      await screenshot(editor.page, "fix-99-last").catch(() => undefined);
      await editor.close();
    }
  });

  scenario("8. What Fixed This Before? on a selected error opens what fixed it", "08", async () => {
    const { page } = editor;
    await openFile(page, "errors.log");
    await activeEditor(page).locator(".view-lines").click();
    await page.keyboard.press("Control+A");
    // The editor's context menu (shown with a selection): the palette's Escape would clear it.
    await activeEditor(page).locator(".view-line", { hasText: ERROR_LINE }).click({ button: "right" });
    await page.locator(".monaco-menu .action-label", { hasText: "What Fixed This Before?" }).first().click();
    await answerShows(page, "What fixed this before (selection)");
    await screenshot(page, "08-fix-from-selection", { media: true });
    await reset(page);
  });

  scenario("9. A failed terminal command whose error was fixed before: a quiet status bar item opens the answer; the setting turns it off", "09", async () => {
    const { page } = editor;
    const hint = page.locator(".statusbar-item", { hasText: "Fixed before" });
    await runCommand(page, "Terminal: Create New Terminal");
    const terminal = page.locator(".terminal-wrapper.active .xterm");
    await terminal.waitFor({ state: "visible", timeout: 20_000 });
    await terminal.click();
    await until("the hint after the command failed", async () => {
      if ((await hint.count()) > 0) {
        return true;
      }
      await page.keyboard.type(`${COMMAND}\n`); // typed again if bash was not ready for it
      await sleep(3000);
      return (await hint.count()) > 0 ? true : undefined;
    }, 60_000, 500);
    assert.equal(await page.locator(".notifications-toasts .notification-toast").count(), 0, "no pop-up");
    await screenshot(page, "09-fix-hint-in-status-bar", { media: true });
    await hint.first().click();
    await answerShows(page, "What fixed this before (terminal)");
    assert.equal(await hint.count(), 0, "the hint goes once its answer is open");

    // Off with one setting: the next failure offers nothing.
    const settings = JSON.parse(readFileSync(editor.userSettings, "utf8")) as Record<string, unknown>;
    await editUserSettings(page, editor.userSettings, { ...settings, "deja.terminal.fixHints": false });
    await terminal.click();
    await page.keyboard.type(`${COMMAND}\n`);
    await sleep(5000); // nothing to wait for: the hint must not come
    assert.equal(await hint.count(), 0, "no hint with deja.terminal.fixHints off");
    await reset(page);
  });
});
