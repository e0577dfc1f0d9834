/** Deja: What Fixed This Before? — `deja/fix` on an editor selection (or typed text), shown as a
 * read-only `deja-fix:` markdown document; and, with shell integration, on every terminal
 * command that ends with a non-zero exit code: when its error was fixed before, a quiet status
 * bar item offers the answer (no pop-up; `deja.terminal.fixHints` turns it off). */

import * as vscode from "vscode";
import { FIX_SCHEME, fixDocumentPath, fixHint, MAX_ERROR_CHARS, terminalText } from "./fixRequest";
import { Commands, Methods, type FixResult } from "../shared/protocol";
import { terminalFixHints } from "../server/settings";
import { errorText, type Sidecar } from "../server/sidecar";

const KEEP = 20; // answer documents whose text stays in memory

/** The parts of VS Code's shell integration API (1.93+) used here; looked up at run time, so an
 * older VS Code simply has no terminal hints. */
interface ShellExecution {
  readonly commandLine: { readonly value: string };
  read(): AsyncIterable<string>;
}
interface ShellExecutionStart {
  readonly execution: ShellExecution;
}
interface ShellExecutionEnd {
  readonly execution: ShellExecution;
  readonly exitCode: number | undefined;
}
interface ShellWindow {
  onDidStartTerminalShellExecution?: vscode.Event<ShellExecutionStart>;
  onDidEndTerminalShellExecution?: vscode.Event<ShellExecutionEnd>;
}

export class FixThis implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly documents = new Map<string, string>();
  private counter = 0;
  /** Output of running commands: `read()` only sees what is written after it is first called. */
  private readonly outputs = new Map<ShellExecution, Promise<string>>();
  private readonly item = vscode.window.createStatusBarItem("deja.fixHint", vscode.StatusBarAlignment.Right, 89);
  private hinted: FixResult | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sidecar: Sidecar) {
    this.item.name = "Deja: fixed before";
    this.item.command = { command: Commands.whatFixedThis, title: "What Fixed This Before?", arguments: [{ fromHint: true }] };
    this.subscriptions = [
      this.item,
      vscode.workspace.registerTextDocumentContentProvider(FIX_SCHEME, this),
      vscode.workspace.onDidChangeConfiguration(() => {
        if (!terminalFixHints()) {
          this.item.hide();
        }
      }),
    ];
    const shell = vscode.window as unknown as ShellWindow;
    if (shell.onDidStartTerminalShellExecution !== undefined && shell.onDidEndTerminalShellExecution !== undefined) {
      this.subscriptions.push(
        shell.onDidStartTerminalShellExecution((event) => this.started(event.execution)),
        shell.onDidEndTerminalShellExecution((event) => void this.ended(event)),
      );
    }
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? "# What fixed this before\n\nThis answer is no longer in memory: ask again.\n";
  }

  /** The command: the hint's answer, else the selection (or a typed error) asked. */
  async run(argument?: unknown): Promise<vscode.TextEditor | undefined> {
    if (typeof argument === "object" && argument !== null && "fromHint" in argument && this.hinted !== undefined) {
      const answer = this.hinted;
      this.item.hide();
      return this.open(answer, "terminal");
    }
    const editor = vscode.window.activeTextEditor;
    const selected = editor?.document.getText(editor.selection).trim();
    const error =
      typeof argument === "string" && argument.trim() !== ""
        ? argument
        : selected !== undefined && selected !== ""
          ? selected
          : await vscode.window.showInputBox({ title: "Deja: What Fixed This Before?", prompt: "The error text (or select it in an editor first)" });
    if (error === undefined || error.trim() === "") {
      return undefined;
    }
    let result: FixResult;
    try {
      result = await this.sidecar.request<FixResult>(Methods.fix, { error: error.slice(-MAX_ERROR_CHARS) });
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot look for past fixes: ${errorText(error)}`);
      return undefined;
    }
    return this.open(result, "selection");
  }

  private async open(result: FixResult, source: "selection" | "terminal"): Promise<vscode.TextEditor> {
    this.counter += 1;
    const uri = vscode.Uri.from({ scheme: FIX_SCHEME, path: fixDocumentPath(source, this.counter) });
    this.documents.set(uri.toString(), `# What fixed this before\n\n${result.markdown}`);
    for (const key of [...this.documents.keys()].slice(0, Math.max(0, this.documents.size - KEEP))) {
      this.documents.delete(key);
    }
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== "markdown") {
      await vscode.languages.setTextDocumentLanguage(document, "markdown");
    }
    return vscode.window.showTextDocument(document, { preview: false });
  }

  private started(execution: ShellExecution): void {
    if (!terminalFixHints()) {
      return;
    }
    const stream = execution.read();
    this.outputs.set(
      execution,
      (async () => {
        let text = "";
        for await (const data of stream) {
          text = (text + data).slice(-4 * MAX_ERROR_CHARS);
        }
        return text;
      })(),
    );
  }

  private async ended(event: ShellExecutionEnd): Promise<void> {
    const reading = this.outputs.get(event.execution);
    this.outputs.delete(event.execution);
    if (reading === undefined || !terminalFixHints()) {
      return;
    }
    const output = terminalText(await reading);
    if (event.exitCode === undefined || event.exitCode === 0 || output.trim() === "") {
      return; // a command that worked (or said nothing) leaves an earlier hint as it is
    }
    let result: FixResult;
    try {
      result = await this.sidecar.request<FixResult>(Methods.fix, { error: output });
    } catch {
      return; // a hint is never worth an error message: an output with nothing that says what failed, or no server
    }
    const hint = fixHint(result, event.execution.commandLine.value);
    if (hint === undefined) {
      this.item.hide();
      this.hinted = undefined;
      return;
    }
    this.hinted = result;
    this.item.text = hint.text;
    this.item.tooltip = hint.tooltip;
    this.item.show();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.documents.clear();
    this.outputs.clear();
  }
}
