/** The extension brings its own server (issue 14): a fresh code-server with the packaged .vsix,
 * no Deja setting at all and the system `python3` (no Deja, nothing pip-installed into it) as the
 * only Python; then `deja.server.python` chosen; then no Python 3.11 or newer reachable. */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { TITLE_ROUND, TOOL_WORD, WRITTEN_ROUND } from "./fixture";
import { activeEditor, editUserSettings, hoverOn, launch, openFile, quickInput, REPO, reset, runCommand, screenshot, sleep, until, type Editor } from "./harness";

const SYSTEM_PYTHON = "/usr/bin/python3";
// Only the system's folders: no pyenv shim, no .venv.
const SYSTEM_PATH = "/usr/bin:/bin";

async function hoverShows(page: Editor["page"], title: string): Promise<string> {
  const hover = await hoverOn(page, WRITTEN_ROUND, "round", title);
  return (await hover.first().innerText()).replace(/\u00a0/g, " ");
}

/** The user settings as they are (the harness's editor settings must stay: they keep typed JSON
 * as typed). */
function currentSettings(editor: Editor): Record<string, unknown> {
  return JSON.parse(readFileSync(editor.userSettings, "utf8")) as Record<string, unknown>;
}

async function logLine(editor: Editor, what: string, pattern: RegExp): Promise<string> {
  return until(what, () => editor.dejaLog().split("\n").find((line) => pattern.test(line)), 60_000, 500);
}

void describe("The bundled server: no Deja setting, only the system python3", { timeout: 300_000 }, () => {
  let editor: Editor;

  before(async () => {
    const probe = spawnSync(SYSTEM_PYTHON, ["-c", "import deja"], { encoding: "utf8" });
    assert.notEqual(probe.status, 0, "the system python3 must not have Deja: the extension brings it");
    editor = await launch({ noDejaSettings: true, path: SYSTEM_PATH, name: "bundled" });
  });

  after(async () => {
    if (editor !== undefined) {
      await screenshot(editor.page, "b99-last").catch(() => undefined);
      await editor.close();
    }
  });

  void test("B1. With no Deja setting the system python3 runs the bundled server: it indexes, searches, hovers and restores", async () => {
    const { page } = editor;
    try {
      await until("the status bar to say `Deja: 2 sessions`", async () => ((await page.locator(".statusbar-item", { hasText: "Deja: 2 sessions" }).count()) > 0 ? true : undefined), 90_000);
      // The start line names the absolute path of the interpreter, not just `python3`.
      const started = await logLine(editor, "the start line", /starting the server \(from PATH, Python 3\.\d+ at \/\S+\)/);
      assert.match(started, /PYTHONPATH=\S*bundled\/libs\S* python3 -m deja serve/, "python3 from PATH runs the bundled libraries");
      const log = editor.dejaLog();
      assert.match(log, /ms-python\.vscode-python-envs is not installed/, "each step of the search is logged");
      assert.match(log, /ms-python\.python is not installed/);
      assert.match(log, /PATH: python3: Python 3\.\d+\.\d+/);
      assert.match(log, /JSON: the standard library's json/, "the universal package carries no orjson");

      await runCommand(page, "Deja: Search History");
      // Typed only once the search's own picker is up (keys sent earlier reach the palette).
      await quickInput(page).locator(".quick-input-title", { hasText: "Deja: Search History" }).waitFor({ state: "visible" });
      const input = quickInput(page).locator("input");
      const row = quickInput(page).locator(".quick-input-list .monaco-list-row", { hasText: TITLE_ROUND }).first();
      await until("the search to find the session", async () => {
        await input.fill(TOOL_WORD);
        try {
          await row.waitFor({ state: "visible", timeout: 5000 });
          return true;
        } catch {
          return undefined;
        }
      }, 30_000);
      await screenshot(page, "b1-search");
      await reset(page);

      await openFile(page, "pricing.py");
      assert.match(await hoverShows(page, TITLE_ROUND), new RegExp(TITLE_ROUND), "the hover names the session");
      await screenshot(page, "b1-hover");
      await reset(page);

      await runCommand(page, "Deja: Restore Context");
      const restore = quickInput(page).locator("input");
      await until("the Restore Context input box", async () => (((await restore.getAttribute("placeholder")) ?? "").includes("last") ? true : undefined), 10_000);
      await restore.fill("last");
      await restore.press("Enter");
      await page.locator(".tabs-container .tab.active", { hasText: "Restored context (last)" }).waitFor({ state: "visible", timeout: 15_000 });
      await activeEditor(page).locator(".view-line", { hasText: "# deja-restore-format: 1" }).first().waitFor({ state: "visible", timeout: 10_000 });
      await screenshot(page, "b1-restore");
    } catch (error) {
      await screenshot(page, "b1-FAILED").catch(() => undefined);
      throw error;
    }
  });

  void test("B3. With deja.server.python set, that interpreter runs the server (log line)", async () => {
    const { page } = editor;
    try {
      await reset(page);
      const chosen = "/usr/bin/python3.11";
      assert.equal(spawnSync(chosen, ["--version"]).status, 0, `${chosen} exists`);
      await editUserSettings(page, editor.userSettings, { ...currentSettings(editor), "deja.server.python": chosen }, "workbench.startupEditor");
      const line = await logLine(editor, "the start line from deja.server.python", /starting the server \(from deja\.server\.python, Python 3\.11 at \/usr\/bin\/python3\.11\)/);
      assert.match(line, new RegExp(`PYTHONPATH=\\S*bundled/libs\\S* ${chosen.replace(/\./g, "\\.")} -m deja serve`));
      await until("the status bar to count the sessions again", async () => ((await page.locator(".statusbar-item", { hasText: "Deja: 2 sessions" }).count()) > 0 ? true : undefined), 60_000);
      await screenshot(page, "b3-python-setting");
    } catch (error) {
      await screenshot(page, "b3-FAILED").catch(() => undefined);
      throw error;
    }
  });

  void test("B4. Connect to Continue wires an MCP server that starts from what is installed; Disconnect removes it", async () => {
    const { page } = editor;
    // A Python that has the MCP server's `mcp` package (the project's .venv): no install offer.
    const python = join(REPO, ".venv", "bin", "python");
    const config = join(editor.fixture.store, "config.yaml");
    try {
      await reset(page);
      await editUserSettings(page, editor.userSettings, { ...currentSettings(editor), "deja.server.python": python }, "workbench.startupEditor");
      await logLine(editor, "the start line with the .venv Python", new RegExp(`from deja\\.server\\.python, Python [^)]* at [^)]*\\): \\S+ ${python.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} -m deja serve`));
      await until("the status bar to count the sessions", async () => ((await page.locator(".statusbar-item", { hasText: "Deja: 2 sessions" }).count()) > 0 ? true : undefined), 60_000);
      await runCommand(page, "View: Close All Editors"); // the README's picture shows the notification alone
      await runCommand(page, "Deja: Connect to Continue");
      await page.locator(".notifications-toasts .notification-toast", { hasText: "Deja is connected to Continue" }).first().waitFor({ state: "visible", timeout: 60_000 });
      await screenshot(page, "b4-connected", { media: true });
      const text = readFileSync(config, "utf8");
      assert.match(text, new RegExp(`command: ${python.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`), "the MCP entry runs the server's Python");
      const pythonPath = /PYTHONPATH: (\S+)/.exec(text)?.[1] ?? "";
      assert.ok(pythonPath.includes("bundled/libs"), `the MCP entry has the bundled libraries on PYTHONPATH: ${text}`);
      const name = await mcpServerName(python, ["-m", "deja", "mcp"], { PYTHONPATH: pythonPath, DEJA_CONTINUE_ROOT: editor.fixture.store, DEJA_HOME: join(editor.root, "mcp-home") }, editor.fixture.workspace);
      assert.equal(name, "deja", "the wired command starts Deja's MCP server");
      await runCommand(page, "Deja: Disconnect from Continue");
      await page.locator(".notifications-toasts .notification-toast", { hasText: "Deja is disconnected from Continue" }).first().waitFor({ state: "visible", timeout: 60_000 });
      assert.ok(!existsSync(config) || !/name: deja\b/.test(readFileSync(config, "utf8")), "Disconnect removes the entry");
    } catch (error) {
      await screenshot(page, "b4-FAILED").catch(() => undefined);
      throw error;
    }
  });
});

/** Starts the MCP entry's command as Continue would and asks it `initialize`; its server name. */
async function mcpServerName(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<string> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } } };
  child.stdin.write(`${JSON.stringify(initialize)}\n`);
  try {
    return await until("the MCP server's answer to initialize", () => {
      const line = out.split("\n").find((candidate) => candidate.includes('"id":1'));
      return line !== undefined ? ((JSON.parse(line) as { result?: { serverInfo?: { name?: string } } }).result?.serverInfo?.name ?? "?") : undefined;
    }, 60_000, 300);
  } finally {
    child.kill();
  }
}

void describe("No Python 3.11 or newer reachable", { timeout: 300_000 }, () => {
  let editor: Editor;
  let folder: string;

  before(async () => {
    // PATH holds only a Python 3.9 stand-in (it answers the version probe as 3.9 would): neither
    // python, py nor any Python 3.11.
    folder = mkdtempSync(join(tmpdir(), "deja-old-python-"));
    mkdirSync(join(folder, "bin"));
    writeFileSync(join(folder, "bin", "python3"), "#!/bin/sh\necho 'deja-probe 3 9 18 0'\n");
    chmodSync(join(folder, "bin", "python3"), 0o755);
    editor = await launch({ noDejaSettings: true, path: join(folder, "bin"), name: "no-python" });
  });

  after(async () => {
    if (editor !== undefined) {
      await editor.close();
    }
    rmSync(folder, { recursive: true, force: true });
  });

  void test("B2. One notification and a status bar item say what to install", async () => {
    const { page } = editor;
    try {
      const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "Deja needs Python 3.11 or newer" });
      await toast.first().waitFor({ state: "visible", timeout: 90_000 });
      const text = await toast.first().innerText();
      assert.match(text, /install Python 3\.11 or newer/);
      assert.match(text, /deja\.server\.python/);
      assert.match(text, /python3 \(Python 3\.9\.18\)/, "it says what it tried");
      const status = page.locator(".statusbar-item", { hasText: "Deja: install Python 3.11+" });
      await status.first().waitFor({ state: "visible", timeout: 10_000 });
      await sleep(2000);
      assert.equal(await toast.count(), 1, "one notification");
      assert.match(editor.dejaLog(), /PATH: python3: Python 3\.9\.18 \(too old, needs 3\.11\)/);
      await screenshot(page, "b2-no-python");
      // Nothing else breaks: a command says the server is not running rather than failing.
      await runCommand(page, "Deja: Show Log");
    } catch (error) {
      await screenshot(page, "b2-FAILED").catch(() => undefined);
      throw error;
    }
  });
});
