/** Starts, watches and restarts the `deja serve` sidecar, and is the one way to ask it things. */

import * as vscode from "vscode";
import { CloseAction, State, type CloseHandlerResult, type LanguageClient } from "vscode-languageclient/node";
import { createClient } from "./client";
import { clientOptions, initializationOptions } from "./clientOptions";
import type { IndexingEvent } from "./indexingProgress";
import { commandLine, diagnose, serverMismatch, startingLine, type Launch } from "./launch";
import type { StoreStatus } from "../shared/protocol";
import { onInterpreterChange } from "./python";
import { onEnvironmentChange } from "./pythonEnvs";
import { NO_PYTHON_STATUS } from "./interpreter";
import { bundle, serverCommand } from "./serverCommand";
import { ServerProcess } from "./serverProcess";

export type SidecarState = "stopped" | "starting" | "running" | "failed";

export class ServerUnavailable extends Error {}

const MAX_CRASH_RESTARTS = 3;
const CRASH_WINDOW_MS = 3 * 60_000;

export class Sidecar implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private server: ServerProcess | undefined;
  private ready: Promise<LanguageClient | undefined> = Promise.resolve(undefined);
  private generation = 0;
  /** The start that reached "running": only its server's crashes restart it. */
  private runningGeneration: number | undefined;
  private crashes: number[] = [];
  private shownFailure: string | undefined;
  private interpreterWatch: vscode.Disposable | undefined;
  private currentState: SidecarState = "stopped";
  private failureText: string | undefined;
  private failureStatusText: string | undefined;
  private currentLaunch: Launch | undefined;

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

  constructor(
    private readonly output: vscode.LogOutputChannel,
    /** The extension's folder: its `bundled/` holds the server the Python runs. */
    private readonly extensionPath: string,
  ) {}

  get state(): SidecarState {
    return this.currentState;
  }

  /** Why the server is not running, when it failed. */
  get failure(): string | undefined {
    return this.failureText;
  }

  /** How the server was started last (undefined: no Python found, or not started yet): the
   * palette's Deja commands run `deja …` the same way. */
  get launch(): Launch | undefined {
    return this.currentLaunch;
  }

  /** The status bar text for the failure, when it has its own (no Python found). */
  get failureStatus(): string | undefined {
    return this.failureStatusText;
  }

  /** A line in the Deja log channel (VS Code stamps the time and level). */
  log(line: string): void {
    this.output.info(line);
  }

  /** Something went wrong but Deja goes on (a request failed, Continue did not answer). */
  warn(line: string): void {
    this.output.warn(line);
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
    const server = this.server;
    this.client = undefined;
    this.server = undefined;
    this.ready = Promise.resolve(undefined);
    if (client !== undefined) {
      try {
        if (client.state === State.Running) {
          await client.stop(2000);
        }
      } catch (error) {
        this.warn(`stopping the server: ${String(error)}`);
      }
      try {
        await client.dispose(1000);
      } catch {
        // already stopped
      }
    }
    server?.kill();
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

  private async doStart(generation: number): Promise<LanguageClient | undefined> {
    this.setState("starting");
    this.failureText = undefined;
    this.failureStatusText = undefined;
    this.currentLaunch = undefined;
    const resolution = await serverCommand((line) => this.log(line), bundle(this.extensionPath));
    if (generation !== this.generation) {
      return undefined;
    }
    if ("noPython" in resolution) {
      this.fail(resolution.noPython, NO_PYTHON_STATUS);
      return undefined;
    }
    const launch = resolution.launch;
    this.currentLaunch = launch;
    const initialization = initializationOptions();
    this.log(startingLine(launch));
    this.log(`initializationOptions: ${JSON.stringify(initialization)}`);
    this.watchInterpreter(launch);

    const server = new ServerProcess(launch, this.output, () => generation === this.generation);
    this.server = server;
    const options = clientOptions(this.output, initialization, {
      error: (line) => this.output.error(line),
      closed: () => this.closed(generation),
    });
    const client = createClient(() => server.spawn(), options, this.output, {
      indexing: (event) => this.indexingEmitter.fire(event),
      indexChanged: (ids) => this.indexChangedEmitter.fire(ids),
      storeStatus: (status) => this.storeStatusEmitter.fire(status),
    });
    this.client = client;
    if (!(await this.startClient(client, launch, server, generation))) {
      return undefined;
    }
    this.runningGeneration = generation;
    this.setState("running");
    return client;
  }

  /** Starts the client and checks it talks to Deja's server; false (failed, or a newer start
   * took over) otherwise. */
  private async startClient(client: LanguageClient, launch: Launch, server: ServerProcess, generation: number): Promise<boolean> {
    try {
      await client.start();
      // A server that exits during `initialize` can leave start() resolved without a result.
      if (client.initializeResult === undefined || client.state !== State.Running) {
        throw new Error("the server closed the connection during initialize");
      }
    } catch (error) {
      if (generation !== this.generation) {
        return false;
      }
      // Give the process a moment to exit so its stderr and exit code are in.
      await new Promise((resolve) => setTimeout(resolve, 300));
      this.output.error(`the server did not start: ${String(error)}`);
      const message = diagnose(launch, server.failure);
      this.client = undefined;
      try {
        await client.dispose(500);
      } catch {
        // it never ran
      }
      this.fail(message);
      return false;
    }
    if (generation !== this.generation) {
      return false;
    }
    const mismatch = serverMismatch(client.initializeResult?.serverInfo);
    if (mismatch !== undefined) {
      this.output.error(mismatch);
      await client.stop().catch(() => undefined);
      this.client = undefined;
      this.fail(`Deja: ${commandLine(launch.argv)} is not Deja's server (${mismatch}). Fix \`deja.server.command\`.`);
      return false;
    }
    const info = client.initializeResult?.serverInfo;
    this.log(`the server is running: ${info?.name ?? "?"} ${info?.version ?? ""}`.trim());
    return true;
  }

  /** The connection of start `generation` closed: a running server that crashed starts again,
   * up to MAX_CRASH_RESTARTS times in CRASH_WINDOW_MS. */
  private closed(generation: number): CloseHandlerResult {
    const handled = { action: CloseAction.DoNotRestart, handled: true };
    if (this.runningGeneration !== generation || generation !== this.generation) {
      return handled;
    }
    const now = Date.now();
    this.crashes = this.crashes.filter((time) => now - time < CRASH_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= MAX_CRASH_RESTARTS) {
      this.warn(`the server stopped; restarting it (${this.crashes.length}/${MAX_CRASH_RESTARTS})`);
      setTimeout(() => {
        if (generation === this.generation) {
          void this.restartAfterCrash();
        }
      }, 500);
      return handled;
    }
    this.fail(`Deja: its server stopped ${MAX_CRASH_RESTARTS + 1} times in three minutes and is not restarted. See the Deja output; "Deja: Restart Server" starts it again.`);
    return handled;
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
  private fail(message: string, status?: string): void {
    this.failureText = message;
    this.failureStatusText = status;
    this.output.error(message);
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
    const noPython = this.failureStatusText !== undefined;
    const actions = noPython ? ["Download Python", "Open Settings", "Show Output"] : ["Open Settings", "Show Output"];
    void vscode.window.showErrorMessage(message, ...actions).then((choice) => {
      if (choice === "Download Python") {
        void vscode.env.openExternal(vscode.Uri.parse("https://www.python.org/downloads/"));
      } else if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "deja.server");
      } else if (choice === "Show Output") {
        this.output.show(true);
      }
    });
  }

  private watchInterpreter(launch: Launch): void {
    this.interpreterWatch?.dispose();
    this.interpreterWatch = undefined;
    if (launch.source === "Python extension") {
      this.interpreterWatch = onInterpreterChange(() => void this.restart("the Python extension selected another interpreter"));
    } else if (launch.source === "Python Environments extension") {
      this.interpreterWatch = onEnvironmentChange(() => void this.restart("the Python Environments extension chose another environment"));
    }
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
