/** What the language client is told: the server's initialization options (from the settings), the
 * output, trust for the server's command links, and middleware for the hover / code lens settings. */

import * as vscode from "vscode";
import {
  ErrorAction,
  RevealOutputChannelOn,
  type CloseHandlerResult,
  type ErrorHandlerResult,
  type LanguageClientOptions,
  type Middleware,
} from "vscode-languageclient/node";
import { serverOptions } from "./launch";
import { rewriteHoverLinks, rewriteLensCommand, TRUSTED_COMMANDS } from "./rewrite";
import { codeLensEnabled, configuredScope, continueRoot, hoverEnabled } from "./settings";

/** `deja.scope` and `deja.continueRoot` when set (the server's defaults apply otherwise), and
 * the opt-in to `deja/*` notifications. */
export function initializationOptions(): Record<string, string | boolean> {
  return serverOptions(configuredScope(), continueRoot());
}

/** Hovers and code lenses pass the settings, and their links name the extension's commands. */
const middleware: Middleware = {
  provideHover: async (document, position, token, next) => {
    if (!hoverEnabled(document.uri)) {
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
    if (!codeLensEnabled(document.uri)) {
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
};

export interface ClientHooks {
  error(line: string): void;
  /** The connection closed: the sidecar decides whether to start the server again. */
  closed(): CloseHandlerResult;
}

export function clientOptions(output: vscode.LogOutputChannel, initialization: Record<string, string | boolean>, hooks: ClientHooks): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: initialization,
    markdown: { isTrusted: { enabledCommands: TRUSTED_COMMANDS }, supportHtml: false },
    initializationFailedHandler: (error) => {
      hooks.error(`initialize failed: ${String(error)}`);
      return false;
    },
    errorHandler: {
      error: (error, _message, count): ErrorHandlerResult => {
        hooks.error(`connection error: ${error.message}`);
        return { action: (count ?? 0) > 3 ? ErrorAction.Shutdown : ErrorAction.Continue, handled: true };
      },
      closed: (): CloseHandlerResult => hooks.closed(),
    },
    middleware,
  };
}
