/** A stand-in for the Continue extension (`Continue.continue`): its `continue` view container and
 * the two commands Reopen in Continue calls, recorded to a file. focusContinueSessionId is
 * registered late and undeclared, as in Continue (the extension must retry). */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function writeContinueStub(folder: string, log: string): void {
  mkdirSync(join(folder, "media"), { recursive: true });
  writeFileSync(
    join(folder, "package.json"),
    JSON.stringify(
      {
        name: "continue",
        displayName: "Continue (test stub)",
        description: "Stands in for Continue in Deja's end-to-end tests.",
        publisher: "Continue",
        version: "1.0.0",
        license: "MIT",
        engines: { vscode: "^1.85.0" },
        main: "./extension.js",
        activationEvents: ["onStartupFinished"],
        contributes: {
          viewsContainers: { activitybar: [{ id: "continue", title: "Continue", icon: "media/continue.svg" }] },
          views: { continue: [{ id: "continue.continueGUIView", name: "Chat" }] },
          commands: [{ command: "continue.navigateTo", title: "Navigate", category: "Continue" }],
        },
      },
      undefined,
      2,
    ),
  );
  writeFileSync(join(folder, "README.md"), "# Continue test stub\n");
  writeFileSync(
    join(folder, "media", "continue.svg"),
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24"><path fill="currentColor" d="M4 4h16v12H7l-3 3z"/></svg>\n',
  );
  writeFileSync(
    join(folder, "extension.js"),
    `const vscode = require("vscode");
const fs = require("fs");
const LOG = ${JSON.stringify(log)};
function record(command, args) {
  fs.appendFileSync(LOG, JSON.stringify({ command, args }) + "\\n");
}
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand("continue.navigateTo", (...args) => record("continue.navigateTo", args)));
  setTimeout(() => {
    context.subscriptions.push(vscode.commands.registerCommand("continue.focusContinueSessionId", (...args) => record("continue.focusContinueSessionId", args)));
  }, 800);
};
exports.deactivate = () => {};
`,
  );
}
