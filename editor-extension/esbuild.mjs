// Bundles the extension (and vscode-languageclient, markdown-it, highlight.js) into dist/extension.js,
// and the session view's webview script into dist/sessionView.js.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const options = {
  entryPoints: ["src/extension.ts"],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node18",
  outfile: "dist/extension.js",
  external: ["vscode"],
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
};

// The session view's script runs in the webview (a browser), not in the extension host.
const webview = { ...options, entryPoints: ["src/sessionView/webview.ts"], format: "iife", platform: "browser", target: "es2022", outfile: "dist/sessionView.js", external: [] };

if (watch) {
  for (const each of [options, webview]) {
    const context = await esbuild.context(each);
    await context.watch();
  }
} else {
  await Promise.all([esbuild.build(options), esbuild.build(webview)]);
}
