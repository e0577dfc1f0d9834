/** Starts code-server 4.139.1 (Node 24) with the packaged extension and a fixture, and drives it
 * with playwright-core and Debian's chromium. Paths come from scripts/setup-e2e.sh (env). */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readdirSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { chromium, type BrowserContext, type FrameLocator, type Locator, type Page } from "playwright-core";
import { writeContinueStub } from "./continueStub";
import { makeFixture, type Fixture } from "./fixture";

export const EXTENSION_DIR = resolve(__dirname, "..", "..", "..");
export const REPO = resolve(EXTENSION_DIR, "..");
export const RESULTS = join(REPO, "test-results", "vscode-e2e");
export const MEDIA = join(EXTENSION_DIR, "media");

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`${name} is not set: run the e2e tests through scripts/test-all.sh (or scripts/e2e.sh)`);
  }
  return value;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ""}`);
    }
    await sleep(everyMs);
  }
}

export interface Editor {
  root: string;
  fixture: Fixture;
  cnLog: string;
  continueLog: string;
  /** code-server's user settings.json (VS Code reloads it when it changes). */
  userSettings: string;
  page: Page;
  /** The "Deja" output channel's log file as it is now ("" before the extension wrote it). */
  dejaLog(): string;
  close(): Promise<void>;
}

/** Everything under a fresh temporary folder; code-server and chromium are stopped by close(). */
export interface LaunchOptions {
  /** Install a stand-in for the Continue extension too. */
  withContinue?: boolean;
  /** No `deja.*` setting at all: the store is where Continue keeps it (`~/.continue`). */
  noDejaSettings?: boolean;
  /** The PATH the extension host gets (after the stub `cn`'s folder), instead of the test's own. */
  path?: string;
  /** Names the kept logs (`code-server-<name>.log`, `deja-output-<name>.log`). */
  name?: string;
  /** User settings added to (or replacing) the defaults below. */
  settings?: Record<string, unknown>;
  /** Called with the fixture before code-server starts (more sessions, more files). */
  prepare?: (fixture: Fixture) => void;
}

export async function launch(options: LaunchOptions = {}): Promise<Editor> {
  const codeServer = required("DEJA_CODE_SERVER");
  const node24 = required("DEJA_NODE24_BIN");
  const chromiumPath = process.env.DEJA_CHROMIUM ?? "/usr/bin/chromium";
  const python = process.env.DEJA_TEST_PYTHON ?? join(REPO, ".venv", "bin", "python");
  const vsix = process.env.DEJA_VSIX ?? join(EXTENSION_DIR, "dist", "deja.vsix");
  for (const [what, path] of [["code-server", codeServer], ["the project's Python (make test creates .venv)", python], ["the packaged extension", vsix]] as const) {
    if (!existsSync(path)) {
      throw new Error(`${what} is missing: ${path}`);
    }
  }
  mkdirSync(RESULTS, { recursive: true });
  const root = realpathSync(mkdtempSync(join(tmpdir(), "deja-e2e-")));
  let fixture = makeFixture(root);
  const home = join(root, "home");
  mkdirSync(home);
  if (options.noDejaSettings === true) {
    renameSync(fixture.store, join(home, ".continue"));
    fixture = { ...fixture, store: join(home, ".continue") };
  }
  options.prepare?.(fixture);

  // A stub `cn` first on PATH: records its argv and working directory.
  const bin = join(root, "bin");
  const cnLog = join(root, "cn-invocations.jsonl");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "cn"),
    `#!/bin/sh\n# stub Continue CLI for the e2e tests\n"${process.execPath}" -e 'require("fs").appendFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd()}) + "\\n")' "${cnLog}" "$@"\necho "stub cn: forked"\n`,
  );
  chmodSync(join(bin, "cn"), 0o755);

  const userData = join(root, "user-data");
  const extensions = join(root, "extensions");
  mkdirSync(join(userData, "User"), { recursive: true });
  const dejaSettings = options.noDejaSettings === true ? {} : { "deja.server.python": python, "deja.continueRoot": fixture.store };
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        ...dejaSettings,
        "workbench.startupEditor": "none",
        // Settings JSON in an ordinary editor tab: a modal one (VS Code's default "some") takes
        // the Escape the tests press to hide a toast, and Ctrl+W does not always close it.
        "workbench.editor.useModal": "off",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "chat.disableAIFeatures": true,
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoUpdate": false,
        "extensions.autoCheckUpdates": false,
        "extensions.ignoreRecommendations": true,
        "editor.hover.delay": 200,
        "editor.minimap.enabled": false,
        // Text typed into the settings JSON stays exactly what was typed (see editUserSettings).
        "editor.autoClosingBrackets": "never",
        "editor.autoClosingQuotes": "never",
        "editor.autoIndent": "none",
        "files.simpleDialog.enable": true,
        // VS Code for the web saves after a delay by default; unsaved edits must stay unsaved.
        "files.autoSave": "off",
        "terminal.integrated.enablePersistentSessions": false,
        "terminal.integrated.shellIntegration.enabled": false,
        "window.restoreWindows": "none",
        "workbench.colorTheme": "Default Dark Modern",
        ...options.settings,
      },
      undefined,
      2,
    ),
  );

  // VS Code's server takes PATH from the user's login shell (`$SHELL -ilc`), for the extension
  // host and the terminals alike: a home of our own whose profile puts the stub first.
  const profile = `export PATH="${bin}:${options.path ?? "$PATH"}"\n`;
  writeFileSync(join(home, ".profile"), profile);
  writeFileSync(join(home, ".bashrc"), profile);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}:${node24}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    DEJA_HOME: join(root, "deja-home"),
    // The scenarios assert search by words ("No Continue session matches"); search by meaning is
    // covered by tests/lsp/test_semantic_search.py and the badge by the unit tests.
    DEJA_SEMANTIC: "0",
    HOME: home,
    SHELL: "/bin/sh",
    ENV: join(home, ".profile"),
  };
  delete env.DEJA_CONTINUE_ROOT;
  delete env.CONTINUE_GLOBAL_DIR;

  const install = spawnSync(codeServer, ["--extensions-dir", extensions, "--user-data-dir", userData, "--install-extension", vsix], { env, encoding: "utf8", timeout: 120_000 });
  if (install.status !== 0) {
    throw new Error(`installing the vsix failed: ${install.stdout}\n${install.stderr}`);
  }

  const continueLog = join(root, "continue-commands.jsonl");
  if (options.withContinue === true) {
    const stub = join(root, "continue-stub");
    writeContinueStub(stub, continueLog);
    const vsce = join(EXTENSION_DIR, "node_modules", ".bin", "vsce");
    const packed = spawnSync(vsce, ["package", "--allow-missing-repository", "--skip-license", "--out", join(root, "continue-stub.vsix")], { cwd: stub, encoding: "utf8" });
    const installed = packed.status === 0 ? spawnSync(codeServer, ["--extensions-dir", extensions, "--user-data-dir", userData, "--install-extension", join(root, "continue-stub.vsix")], { env, encoding: "utf8", timeout: 120_000 }) : packed;
    if (installed.status !== 0) {
      throw new Error(`installing the Continue stub failed: ${installed.stdout}\n${installed.stderr}`);
    }
  }

  const port = await freePort();
  const logName = options.name ?? (options.withContinue === true ? "with-continue" : undefined);
  const serverLog = join(RESULTS, logName !== undefined ? `code-server-${logName}.log` : "code-server.log");
  const server: ChildProcess = spawn(
    codeServer,
    [
      "--bind-addr", `127.0.0.1:${port}`,
      "--auth", "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--reconnection-grace-time", "30",
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      fixture.workspace,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let serverOutput = "";
  server.stdout?.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (serverOutput += chunk.toString()));

  let context: BrowserContext | undefined;
  const close = async () => {
    try {
      await context?.close();
    } catch {
      // already gone
    }
    if (server.pid !== undefined) {
      try {
        process.kill(-server.pid, "SIGTERM"); // the whole group: extension hosts and the sidecar too
      } catch {
        // already gone
      }
      await sleep(300);
      try {
        process.kill(-server.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    writeFileSync(serverLog, serverOutput);
    copyDejaLog(userData, logName !== undefined ? `deja-output-${logName}.log` : "deja-output.log");
    if (process.env.DEJA_E2E_KEEP === undefined) {
      rmSync(root, { recursive: true, force: true });
    }
  };

  try {
    await until("code-server's /healthz", async () => {
      if (server.exitCode !== null) {
        throw new Error(`code-server exited: ${serverOutput}`);
      }
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      return response.ok ? true : undefined;
    }, 30_000);

    context = await chromium.launchPersistentContext(join(root, "chromium-profile"), {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      permissions: ["clipboard-read", "clipboard-write"], // so scenarios can check what Copy copied
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(fixture.workspace)}`);
    await page.waitForSelector(".monaco-workbench", { timeout: 60_000 });
    const dejaLog = () => {
      const found = findDejaLogs(userData);
      return found.length > 0 ? readFileSync(found[found.length - 1], "utf8") : "";
    };
    return { root, fixture, cnLog, continueLog, userSettings: join(userData, "User", "settings.json"), page, dejaLog, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A screenshot in test-results; with `media`, also the one the extension's README shows. */
export async function screenshot(page: Page, name: string, options: { media?: boolean } = {}): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `${name}.png`) });
  if (options.media === true) {
    mkdirSync(MEDIA, { recursive: true });
    copyFileSync(join(RESULTS, `${name}.png`), join(MEDIA, `${name}.png`));
  }
}

/** Runs a command from the palette. Commands reach the palette a few seconds after the workbench
 * shows, and an open palette does not refresh: retry. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await until(`the command "${title}" in the palette`, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 5000 });
    await input.fill(`>${title}`);
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    try {
      await row.waitFor({ state: "visible", timeout: 2500 });
    } catch {
      return undefined;
    }
    await input.press("Enter");
    return true;
  }, 30_000, 500);
}

/** Opens a workspace file through Quick Open (retried: a keystroke can land before the picker
 * has filtered). */
export async function openFile(page: Page, name: string): Promise<void> {
  const tab = page.locator(`.tabs-container .tab.active[data-resource-name="${name}"]`);
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  await until(`${name} open in the editor`, async () => {
    const open = page.locator(`.tabs-container .tab[data-resource-name="${name}"]`).first();
    if ((await open.count()) > 0) {
      await open.click();
      return (await tab.count()) > 0 ? true : undefined;
    }
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 5000 });
    await input.fill(name);
    const row = page.locator(".quick-input-list .monaco-list-row").filter({ has: page.locator(".label-name", { hasText: exact }) }).first();
    await row.waitFor({ state: "visible", timeout: 5000 });
    await sleep(500); // file search results arrive late and reorder the list
    await row.click();
    try {
      await tab.waitFor({ state: "visible", timeout: 3000 });
      return true;
    } catch {
      return undefined;
    }
  }, 30_000, 300);
}

/** What the clipboard holds (code-server writes the browser's clipboard). */
export async function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

export function quickInput(page: Page): Locator {
  return page.locator(".quick-input-widget");
}

export function activeEditor(page: Page): Locator {
  return page.locator(".editor-group-container.active .editor-instance .monaco-editor").first();
}

const DEJA_WEBVIEW = 'iframe.webview.ready[src*="extensionId=deja.deja"]:visible';

/** The session view on screen: of the extension's visible webviews (a session view panel, Deja
 * Search's form), the one showing a session's turns. */
export async function sessionView(page: Page): Promise<FrameLocator> {
  return until("a session view on screen", async () => {
    const count = await page.locator(DEJA_WEBVIEW).count();
    for (let n = 0; n < count; n++) {
      const frame = page.locator(DEJA_WEBVIEW).nth(n).contentFrame().frameLocator("#active-frame");
      if ((await frame.locator("main#turns").count()) > 0) {
        return frame;
      }
    }
    return undefined;
  }, 5000);
}

/** Waits for the session view of `title` with `turn` marked (the one turn, `aria-current`) and
 * focused; fails unless that turn is in sight. */
export async function sessionViewAt(page: Page, title: string, turn: number): Promise<FrameLocator> {
  const view = await until(`the session view of ${title}`, async () => {
    const frame = await sessionView(page);
    return (await frame.locator("h1", { hasText: title }).count()) > 0 ? frame : undefined;
  }, 20_000);
  await view.locator("h1", { hasText: title }).first().waitFor({ state: "visible", timeout: 20_000 });
  const marked = view.locator("section.turn.marked");
  await until(`turn ${turn} marked and focused in the session view`, async () =>
    (await marked.count()) === 1 &&
    (await marked.getAttribute("data-turn", { timeout: 2000 })) === String(turn) &&
    (await marked.evaluate((section) => document.activeElement === section, undefined, { timeout: 2000 }))
      ? true
      : undefined, 15_000);
  if ((await view.locator("section.turn[aria-current='true']").count()) !== 1) {
    throw new Error("more than one turn is marked current");
  }
  const inSight = await marked.evaluate((section) => section.getBoundingClientRect().top >= 0 && section.getBoundingClientRect().top < window.innerHeight);
  if (!inSight) {
    throw new Error(`turn ${turn} is marked but not scrolled into sight`);
  }
  return view;
}

/** The text of the line the cursor is on in the active editor (not the sticky-scroll copy). */
export async function cursorLine(page: Page): Promise<string> {
  return activeEditor(page).evaluate((element) => {
    const active = element.querySelector<HTMLElement>(".margin-view-overlays .active-line-number");
    const top = active?.parentElement?.style.top ?? active?.style.top;
    if (top === undefined) {
      return "";
    }
    const lines = Array.from(element.querySelectorAll<HTMLElement>(".lines-content .view-lines .view-line"));
    const line = lines.find((candidate) => candidate.style.top === top);
    return (line?.textContent ?? "").replace(/\u00a0/g, " ");
  });
}

export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) {
    return [];
  }
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

export function readCnLog(path: string): { argv: string[]; cwd: string }[] {
  if (!existsSync(path)) {
    return [];
  }
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { argv: string[]; cwd: string });
}

/** Closes quick inputs, hovers and peeks a previous step may have left open. */
export async function reset(page: Page): Promise<void> {
  await page.mouse.move(5, 5);
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("Escape");
  }
}

/** The extension's "Deja" output channel (a log channel: `exthost/deja.deja/Deja.log`), kept
 * next to the screenshots. */
function copyDejaLog(userData: string, name: string): void {
  const found = findDejaLogs(userData);
  if (found.length > 0) {
    copyFileSync(found[found.length - 1], join(RESULTS, name));
  }
}

function findDejaLogs(userData: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.name === "Deja.log") {
        found.push(path);
      }
    }
  };
  try {
    walk(join(userData, "logs"));
  } catch {
    // no logs yet
  }
  return found.sort();
}

/** Replaces the user settings through VS Code's JSON editor; returns once the file on disk holds
 * them. No Escape after saving: VS Code binds Escape to "hide notification toasts", and the change
 * may raise one (scenario 7) that must stay on screen. */
export async function editUserSettings(page: Page, userSettings: string, settings: Record<string, unknown>, marker = "deja.continueRoot"): Promise<void> {
  await runCommand(page, "Preferences: Open User Settings (JSON)");
  const editor = page.locator(".monaco-editor", { has: page.locator(".view-line", { hasText: marker }) }).last();
  await editor.waitFor({ state: "visible" });
  await editor.locator(".view-lines").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(JSON.stringify(settings, undefined, 2));
  const wanted = JSON.stringify(settings);
  await until("the settings saved to disk", async () => {
    await page.keyboard.press("Control+S");
    try {
      return JSON.stringify(JSON.parse(readFileSync(userSettings, "utf8"))) === wanted ? true : undefined;
    } catch {
      return undefined;
    }
  }, 20_000, 500);
  await page.keyboard.press("Control+W");
}

/** Hovers the mouse over `word` on the line holding `lineText` until Deja's hover naming
 * `title` shows; returns it. */
export async function hoverOn(page: Page, lineText: string, word: string, title: string): Promise<Locator> {
  const line = activeEditor(page).locator(".view-line", { hasText: lineText }).first();
  await line.waitFor({ state: "visible" });
  // The editor's hover, not a workbench hover (a tab's tooltip names the session too).
  const hover = page.locator(".monaco-hover:not(.workbench-hover):visible", { hasText: title });
  const target = line.locator("span span", { hasText: word }).first();
  await until("the Deja hover", async () => {
    const box = await target.boundingBox();
    if (box === null) {
      return undefined;
    }
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
    try {
      await hover.first().waitFor({ state: "visible", timeout: 3000 });
    } catch {
      await page.mouse.move(5, 5);
      return undefined;
    }
    // A code lens arriving above moves the lines down: the hover may be another line's.
    const after = await target.boundingBox();
    if (after !== null && after.y === box.y) {
      return true;
    }
    await page.mouse.move(5, 5);
    return undefined;
  }, 30_000);
  return hover;
}

/** A test that leaves `<slug>-FAILED.png` of `page()` behind when it fails. */
export function scenarioTest(name: string, slug: string, page: () => Page, body: () => Promise<void>): void {
  void test(name, async () => {
    try {
      await body();
    } catch (error) {
      await screenshot(page(), `${slug}-FAILED`).catch(() => undefined);
      throw error;
    }
  });
}

/** The sidecar started, indexed the fixture and answered: the status bar counts the workspace's
 * `count` sessions. */
export async function sessionsCounted(page: Page, count: number): Promise<void> {
  await until(
    `the status bar to say \`Deja: ${count} sessions\``,
    async () => ((await page.locator(".statusbar-item", { hasText: `Deja: ${count} sessions` }).count()) > 0 ? true : undefined),
    60_000,
  );
}
