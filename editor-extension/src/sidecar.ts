/** Starts, watches and restarts the `deja serve` sidecar, and is the one way to ask it things. */

import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type ClientCapabilities,
  type CloseHandlerResult,
  type ErrorHandlerResult,
  type FeatureState,
  type LanguageClientOptions,
  type StaticFeature,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { commandLine, diagnose, resolveLaunch, serverMismatch, settingProblems, type Launch } from "./pure/launch";
import { IndexingToken, Methods, type StoreStatus } from "./pure/protocol";
import { rewriteHoverLinks, rewriteLensCommand, TRUSTED_COMMANDS } from "./pure/rewrite";
import { parseStoreStatus } from "./pure/storeStatus";
import { onInterpreterChange, selectedInterpreter } from "./python";

export type SidecarState = "stopped" | "starting" | "running" | "failed";

export type IndexingEvent =
  | { kind: "begin" | "report"; message?: string; percentage?: number }
  | { kind: "end"; message?: string };

/** The client library shows notifications for its own errors; Deja shows one of its own instead. */
class QuietClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
  override warn(message: string, data?: unknown): void {
    super.warn(message, data, false);
  }
  override info(message: string, data?: unknown): void {
    super.info(message, data, false);
  }
}

/** Takes over `window/workDoneProgress/create` for the server's indexing token: the status bar
 * shows it (the library's own window progress would say the same thing twice). */
class IndexingProgressFeature implements StaticFeature {
  private subscription: vscode.Disposable | undefined;

  constructor(
    private readonly client: LanguageClient,
    private readonly report: (event: IndexingEvent) => void,
  ) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...(capabilities.window ?? {}), workDoneProgress: true };
  }

  initialize(): void {
    // Registered after the library's progress feature, so this handler replaces its one.
    this.client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      if (params.token !== IndexingToken) {
        return;
      }
      this.subscription?.dispose();
      this.subscription = this.client.onProgress(
        WorkDoneProgress.type,
        params.token,
        (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
          if (value.kind === "end") {
            this.report({ kind: "end", message: value.message });
            this.subscription?.dispose();
            this.subscription = undefined;
          } else {
            this.report({ kind: value.kind, message: value.message, percentage: value.percentage });
          }
        },
      );
    });
  }

  getState(): FeatureState {
    return { kind: "static" };
  }

  clear(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
  }
}

export class ServerUnavailable extends Error {}

const STDERR_TAIL = 8192;
const MAX_CRASH_RESTARTS = 3;
const CRASH_WINDOW_MS = 3 * 60_000;

export class Sidecar implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private process: ChildProcess | undefined;
  private stderr = "";
  private spawnError: string | undefined;
  private exitCode: number | null | undefined;
  private ready: Promise<LanguageClient | undefined> = Promise.resolve(undefined);
  private generation = 0;
  private crashes: number[] = [];
  private shownFailure: string | undefined;
  private interpreterWatch: vscode.Disposable | undefined;
  private currentState: SidecarState = "stopped";
  private failureText: string | undefined;

  private readonly stateEmitter = new vscode.EventEmitter<SidecarState>();
  private readonly indexChangedEmitter = new vscode.EventEmitter<string[]>();
  private readonly storeStatusEmitter = new vscode.EventEmitter<StoreStatus>();
  private readonly indexingEmitter = new vscode.EventEmitter<IndexingEvent>();
  /** Fires with the new state: starting, running (a client is ready), failed, stopped. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** `deja/indexChanged`: the ids of the sessions added, re-read or deleted. */
  readonly onIndexChanged = this.indexChangedEmitter.event;
  /** `deja/storeStatus`: passes stopped (or started again) applying Continue's store. */
  readonly onStoreStatus = this.storeStatusEmitter.event;
  /** The first pass's work-done progress (`deja/indexing`). */
  readonly onIndexing = this.indexingEmitter.event;

  constructor(private readonly output: vscode.OutputChannel) {}

  get state(): SidecarState {
    return this.currentState;
  }

  /** Why the server is not running, when it failed. */
  get failure(): string | undefined {
    return this.failureText;
  }

  log(line: string): void {
    this.output.appendLine(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  }

  private setState(state: SidecarState): void {
    this.currentState = state;
    this.stateEmitter.fire(state);
  }

  /** Starts the server; resolves when it answers (or failed: see `state`). */
  start(): Promise<LanguageClient | undefined> {
    const generation = ++this.generation;
    this.ready = this.doStart(generation);
    return this.ready;
  }

  async restart(reason: string): Promise<void> {
    this.log(`restarting the server: ${reason}`);
    await this.stop();
    this.crashes = [];
    this.shownFailure = undefined;
    await this.start();
  }

  async stop(): Promise<void> {
    this.generation++;
    const client = this.client;
    const child = this.process;
    this.client = undefined;
    this.process = undefined;
    this.ready = Promise.resolve(undefined);
    if (client !== undefined) {
      try {
        if (client.state === State.Running) {
          await client.stop(2000);
        }
      } catch (error) {
        this.log(`stopping the server: ${String(error)}`);
      }
      try {
        await client.dispose(1000);
      } catch {
        // already stopped
      }
    }
    if (child !== undefined && child.exitCode === null && !child.killed) {
      child.kill();
    }
    this.setState("stopped");
  }

  /** A request to the sidecar; waits for a starting server; `ServerUnavailable` when it is not running. */
  async request<R>(method: string, params: object, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.ready;
    if (client === undefined || this.client !== client || client.state !== State.Running) {
      throw new ServerUnavailable(this.failureText ?? "Deja's server is not running (Deja: Restart Server starts it).");
    }
    // Without a token, sendRequest(method, params, undefined) would send `[params, null]`.
    return token !== undefined ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params);
  }

  /** The running client's code lens providers, asked again (after `deja.codeLens.enabled` changed). */
  refreshCodeLenses(): void {
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      return;
    }
    const feature = client.getFeature("textDocument/codeLens");
    for (const editor of vscode.window.visibleTextEditors) {
      feature.getProvider(editor.document)?.onDidChangeCodeLensEmitter.fire();
    }
  }

  private async resolve(): Promise<Launch> {
    const config = vscode.workspace.getConfiguration("deja");
    const settings = { command: config.get<unknown>("server.command"), python: config.get<unknown>("server.python") };
    for (const problem of settingProblems(settings)) {
      this.log(problem);
    }
    const first = resolveLaunch(settings);
    if (first.source !== "PATH") {
      return first;
    }
    const interpreter = await selectedInterpreter((line) => this.log(line));
    return resolveLaunch(settings, interpreter);
  }

  private initializationOptions(): Record<string, string> {
    const config = vscode.workspace.getConfiguration("deja");
    const options: Record<string, string> = {};
    const scope = config.get<string>("scope");
    if (scope === "workspace" || scope === "all") {
      options.scope = scope;
    }
    const root = config.get<string>("continueRoot")?.trim();
    if (root) {
      options.continueRoot = root;
    }
    return options;
  }

  private spawnServer(launch: Launch, generation: number): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      const cwd = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === "file")?.uri.fsPath;
      const child = spawn(launch.argv[0], launch.argv.slice(1), {
        cwd,
        env: { ...process.env, PYTHONUNBUFFERED: "1" },
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        this.spawnError = error.code ?? error.message;
        this.log(`cannot run ${launch.argv[0]}: ${error.message}`);
        reject(error);
      });
      child.once("spawn", () => {
        if (generation === this.generation) {
          this.process = child;
        }
        resolve(child);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      child.once("exit", (code, signal) => {
        this.exitCode = code;
        if (generation === this.generation) {
          this.log(`the server exited (${signal !== null ? `signal ${signal}` : `code ${String(code)}`})`);
        }
      });
    });
  }

  private async doStart(generation: number): Promise<LanguageClient | undefined> {
    this.setState("starting");
    this.stderr = "";
    this.spawnError = undefined;
    this.exitCode = undefined;
    this.failureText = undefined;
    const launch = await this.resolve();
    if (generation !== this.generation) {
      return undefined;
    }
    const options = this.initializationOptions();
    this.log(`starting the server (from ${launch.source}): ${commandLine(launch.argv)}`);
    this.log(`initializationOptions: ${JSON.stringify(options)}`);
    this.watchInterpreter(launch);

    let running = false;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: options,
      markdown: { isTrusted: { enabledCommands: TRUSTED_COMMANDS }, supportHtml: false },
      initializationFailedHandler: (error) => {
        this.log(`initialize failed: ${String(error)}`);
        return false;
      },
      errorHandler: {
        error: (error, _message, count): ErrorHandlerResult => {
          this.log(`connection error: ${error.message}`);
          return { action: (count ?? 0) > 3 ? ErrorAction.Shutdown : ErrorAction.Continue, handled: true };
        },
        closed: (): CloseHandlerResult => {
          if (!running || generation !== this.generation) {
            return { action: CloseAction.DoNotRestart, handled: true };
          }
          const now = Date.now();
          this.crashes = this.crashes.filter((time) => now - time < CRASH_WINDOW_MS);
          this.crashes.push(now);
          if (this.crashes.length <= MAX_CRASH_RESTARTS) {
            this.log(`the server stopped; restarting it (${this.crashes.length}/${MAX_CRASH_RESTARTS})`);
            setTimeout(() => {
              if (generation === this.generation) {
                void this.restartAfterCrash();
              }
            }, 500);
            return { action: CloseAction.DoNotRestart, handled: true };
          }
          this.fail(`Deja: its server stopped ${MAX_CRASH_RESTARTS + 1} times in three minutes and is not restarted. See the Deja output; "Deja: Restart Server" starts it again.`);
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      middleware: {
        provideHover: async (document, position, token, next) => {
          if (!vscode.workspace.getConfiguration("deja", document.uri).get<boolean>("hover.enabled", true)) {
            return undefined;
          }
          const hover = await next(document, position, token);
          if (hover === undefined || hover === null) {
            return hover;
          }
          const contents = hover.contents.map((content) => {
            if (content instanceof vscode.MarkdownString) {
              const rewritten = new vscode.MarkdownString(rewriteHoverLinks(content.value));
              rewritten.isTrusted = { enabledCommands: TRUSTED_COMMANDS };
              rewritten.supportHtml = false;
              return rewritten;
            }
            return content;
          });
          return new vscode.Hover(contents, hover.range);
        },
        provideCodeLenses: async (document, token, next) => {
          if (!vscode.workspace.getConfiguration("deja", document.uri).get<boolean>("codeLens.enabled", true)) {
            return [];
          }
          const lenses = await next(document, token);
          for (const lens of lenses ?? []) {
            if (lens.command !== undefined) {
              const rewritten = rewriteLensCommand(lens.command);
              lens.command = { ...lens.command, command: rewritten.command };
            }
          }
          return lenses;
        },
      },
    };

    const client = new QuietClient("deja", "Deja", () => this.spawnServer(launch, generation), clientOptions);
    client.registerFeature(new IndexingProgressFeature(client, (event) => this.indexingEmitter.fire(event)));
    client.onNotification(Methods.indexChanged, (params: { sessions?: unknown }) => {
      const ids = Array.isArray(params?.sessions) ? params.sessions.filter((id): id is string => typeof id === "string") : [];
      this.indexChangedEmitter.fire(ids);
    });
    client.onNotification(Methods.storeStatus, (params: unknown) => {
      const status = parseStoreStatus(params);
      if (status !== undefined) {
        this.storeStatusEmitter.fire(status);
      }
    });
    this.client = client;
    try {
      await client.start();
      // A server that exits during `initialize` can leave start() resolved without a result.
      if (client.initializeResult === undefined || client.state !== State.Running) {
        throw new Error("the server closed the connection during initialize");
      }
    } catch (error) {
      if (generation !== this.generation) {
        return undefined;
      }
      // Give the process a moment to exit so its stderr and exit code are in.
      await new Promise((resolve) => setTimeout(resolve, 300));
      this.log(`the server did not start: ${String(error)}`);
      const message = diagnose(launch, { spawnError: this.spawnError, exitCode: this.exitCode, stderr: this.stderr });
      this.client = undefined;
      try {
        await client.dispose(500);
      } catch {
        // it never ran
      }
      this.fail(message);
      return undefined;
    }
    if (generation !== this.generation) {
      return undefined;
    }
    const mismatch = serverMismatch(client.initializeResult?.serverInfo);
    if (mismatch !== undefined) {
      this.log(mismatch);
      await client.stop().catch(() => undefined);
      this.client = undefined;
      this.fail(`Deja: ${commandLine(launch.argv)} is not Deja's server (${mismatch}). Fix \`deja.server.command\`.`);
      return undefined;
    }
    const info = client.initializeResult?.serverInfo;
    this.log(`the server is running: ${info?.name ?? "?"} ${info?.version ?? ""}`.trim());
    running = true;
    this.setState("running");
    return client;
  }

  private async restartAfterCrash(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      await client.dispose(500).catch(() => undefined);
    }
    await this.start();
  }

  /** One notification per distinct failure (until the settings change or the user restarts). */
  private fail(message: string): void {
    this.failureText = message;
    this.log(message);
    this.setState("failed");
    if (this.shownFailure === message) {
      return;
    }
    this.shownFailure = message;
    this.showFailure();
  }

  /** The failure's notification, again on demand: a toast hidden by Escape (VS Code's "hide
   * notification toasts") or folded into the notification centre is one click away. */
  showFailure(): void {
    const message = this.failureText;
    if (message === undefined) {
      this.output.show(true);
      return;
    }
    void vscode.window.showErrorMessage(message, "Open Settings", "Show Output").then((choice) => {
      if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "deja.server");
      } else if (choice === "Show Output") {
        this.output.show(true);
      }
    });
  }

  private watchInterpreter(launch: Launch): void {
    this.interpreterWatch?.dispose();
    this.interpreterWatch = undefined;
    if (launch.source !== "Python extension") {
      return;
    }
    this.interpreterWatch = onInterpreterChange(() => void this.restart("the Python extension selected another interpreter"));
  }

  /** Settings that change how the server starts or what it is told restart it. */
  static needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
    return ["deja.server", "deja.scope", "deja.continueRoot"].some((section) => event.affectsConfiguration(section));
  }

  dispose(): void {
    this.interpreterWatch?.dispose();
    void this.stop();
    this.stateEmitter.dispose();
    this.indexChangedEmitter.dispose();
    this.storeStatusEmitter.dispose();
    this.indexingEmitter.dispose();
  }
}

/** A short text for an error from a request (the server's JSON-RPC message, or ours). */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}
