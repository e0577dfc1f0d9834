import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

interface Step {
  id: string;
  description: string;
  media: { markdown?: string };
  completionEvents?: string[];
}

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported?: string | boolean; restrictedConfigurations?: string[] } };
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default?: unknown; enum?: string[] }> };
    walkthroughs?: { id: string; steps: Step[] }[];
  };
}

// Compiled to out/test/unit: the extension's folder is three folders up.
const ROOT = join(__dirname, "..", "..", "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;

void test("untrusted workspaces: limited, the settings that run a program restricted", () => {
  const untrusted = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(untrusted?.supported, "limited");
  assert.deepEqual([...(untrusted?.restrictedConfigurations ?? [])].sort(), ["deja.server.command", "deja.server.python"]);
});

void test("importStrategy: useBundled by default, or fromEnvironment", () => {
  const setting = manifest.contributes.configuration.properties["deja.server.importStrategy"];
  assert.equal(setting.default, "useBundled");
  assert.deepEqual(setting.enum, ["useBundled", "fromEnvironment"]);
});

void test("the walkthrough: 3–4 steps, each running a contributed command, each with its page", () => {
  const walkthroughs = manifest.contributes.walkthroughs ?? [];
  assert.equal(walkthroughs.length, 1);
  const steps = walkthroughs[0].steps;
  assert.ok(steps.length >= 3 && steps.length <= 4, `${steps.length} steps`);
  const commands = new Set(manifest.contributes.commands.map((entry) => entry.command));
  for (const step of steps) {
    const linked = /\(command:([\w.]+)\)/.exec(step.description)?.[1];
    assert.ok(linked !== undefined && commands.has(linked), `${step.id} links a contributed command`);
    assert.deepEqual(step.completionEvents, [`onCommand:${linked}`], `${step.id} completes when its command runs`);
    assert.ok(step.media.markdown !== undefined && existsSync(join(ROOT, step.media.markdown)), `${step.id}'s page exists`);
  }
  assert.deepEqual(steps.map((step) => step.id), ["search", "filePast", "connect", "restore"]);
});

void test("the package ships the bundled server and the walkthrough's pages", () => {
  const ignore = readFileSync(join(ROOT, ".vscodeignore"), "utf8").split("\n");
  assert.ok(ignore.includes("!bundled/**"));
  assert.ok(ignore.includes("!media/**"));
});
