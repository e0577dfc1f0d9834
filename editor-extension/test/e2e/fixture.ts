/** A Continue store and a workspace for the end-to-end tests: `cn`-shaped sessions whose
 * workspaceDirectory is the temporary workspace, so hover, peek and fork work on a real file. */

import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DAY = 86_400_000;

export const SESSION_ROUND = "a1f0c3d2-5b6e-4c7d-8e9f-0a1b2c3d4e01";
export const SESSION_DISCOUNT = "b2e1d4c3-6a7f-4d8e-9f0a-1b2c3d4e5f02";
export const SESSION_ELSEWHERE = "c3d2e5f4-7b8a-4e9f-8a1b-2c3d4e5f6a03";
export const TITLE_ROUND = "Round prices to cents";
export const TITLE_DISCOUNT = "Add a discount code to checkout";
export const TITLE_ELSEWHERE = "Migrate billing to Stripe";
/** A word only a tool call (a Bash command in turn 8 of SESSION_ROUND) contains. */
export const TOOL_WORD = "zanzibar_round";
export const TOOL_TURN = 8; // turns are the history items: the Bash call is item 8
/** Text SESSION_ROUND wrote that still stands in src/pricing.py. */
export const WRITTEN_ROUND = "return round(total, 2)";
export const WRITTEN_DISCOUNT = "return amount * 0.9";

export const PRICING_PY = `"""Prices for the shop."""

TAX_RATE = 0.2


def price_with_tax(amount):
    total = amount * (1 + TAX_RATE)
    return round(total, 2)


def apply_discount(amount, code):
    if code == "WELCOME10":
        return amount * 0.9
    return amount
`;

/** What SESSION_DISCOUNT's Write created: src/inventory.py, every line of it. */
export const INVENTORY_PY = `"""Stock levels for the shop."""

STOCK = {}


def restock(item, count):
    STOCK[item] = STOCK.get(item, 0) + count
    return STOCK[item]


def in_stock(item):
    return STOCK.get(item, 0) > 0
`;
/** A line of INVENTORY_PY the e2e leaves untouched while it edits the file around it. */
export const WRITTEN_INVENTORY = "STOCK[item] = STOCK.get(item, 0) + count";
export const ASKED_INVENTORY = "track stock levels in a new inventory module";

type Json = Record<string, unknown>;
let callCounter = 0;

export function user(text: string): Json {
  return { message: { role: "user", content: text }, contextItems: [], editorState: text };
}

export function tool(name: string, args: Json, output: string): Json {
  const id = `call-${++callCounter}`;
  const call = { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
  return {
    message: { role: "assistant", content: "", toolCalls: [call] },
    contextItems: [],
    toolCallStates: [
      {
        toolCallId: id,
        toolCall: call,
        status: "done",
        parsedArgs: args,
        output: [{ content: output, name: "Tool Result", description: "Tool execution result" }],
      },
    ],
  };
}

export function assistant(text: string): Json {
  return { message: { role: "assistant", content: text }, contextItems: [] };
}

function edit(path: string, oldText: string, newText: string): Json {
  return tool("Edit", { file_path: path, old_string: oldText, new_string: newText }, `Successfully edited ${path}`);
}

export const SESSION_LATE = "d4e3f6a5-8c9b-4f0a-9b1c-3d4e5f6a7b04";
export const TITLE_LATE = "Cache the tax table";

/** A session Continue writes while the editor is open (the watcher must pick it up). */
export function writeLateSession(store: string, workspace: string): void {
  const file = join(store, "sessions", `${SESSION_LATE}.json`);
  const document = {
    sessionId: SESSION_LATE,
    title: TITLE_LATE,
    workspaceDirectory: workspace,
    history: [user("cache TAX_RATE lookups"), assistant("Done: the table is read once.")],
  };
  writeFileSync(file, JSON.stringify(document, undefined, 2));
}

export interface Fixture {
  store: string;
  workspace: string;
  pricing: string;
}

/** Writes `<root>/continue/sessions/*.json` and `<root>/workspace/shop/…`. */
export function makeFixture(root: string, now: number = Date.now()): Fixture {
  const store = join(root, "continue");
  const workspace = join(root, "workspace", "shop");
  const sessionsDir = join(store, "sessions");
  mkdirSync(sessionsDir, { recursive: true });
  mkdirSync(join(workspace, "src"), { recursive: true });
  mkdirSync(join(workspace, "tests"), { recursive: true });
  const pricing = join(workspace, "src", "pricing.py");
  writeFileSync(pricing, PRICING_PY);
  const inventory = join(workspace, "src", "inventory.py");
  writeFileSync(inventory, INVENTORY_PY);
  writeFileSync(join(workspace, "tests", "test_pricing.py"), "from src.pricing import price_with_tax\n\n\ndef test_rounds():\n    assert price_with_tax(1) == 1.2\n");
  writeFileSync(join(workspace, "README.md"), "# shop\n");

  const sessions: { id: string; title: string; workspace: string; created: number; history: Json[] }[] = [
    {
      id: SESSION_ROUND,
      title: TITLE_ROUND,
      workspace,
      created: now - 3 * DAY,
      history: [
        user("price_with_tax returns too many decimals, round it to cents"),
        tool("Read", { filepath: pricing }, `Content of ${pricing}:\n${PRICING_PY.replace("round(total, 2)", "total")}`),
        edit(pricing, "    return total\n", "    return round(total, 2)\n"),
        assistant("price_with_tax now rounds to cents."),
        user("run the tests"),
        tool("Bash", { command: "python -m pytest tests/test_pricing.py -q" }, "1 passed in 0.01s"),
        assistant("The tests pass."),
        user("check that nobody still calls the old rounding helper"),
        tool("Bash", { command: `grep -rn ${TOOL_WORD} src/ tests/` }, ""),
        assistant("Nothing calls the old helper any more."),
      ],
    },
    {
      id: SESSION_DISCOUNT,
      title: TITLE_DISCOUNT,
      workspace,
      created: now - 1 * DAY,
      history: [
        user("add a WELCOME10 discount code to checkout"),
        edit(
          pricing,
          "def apply_discount(amount, code):\n    return amount\n",
          'def apply_discount(amount, code):\n    if code == "WELCOME10":\n        return amount * 0.85\n    return amount\n',
        ),
        assistant("Added WELCOME10 at 15%."),
        user("make it 10% off, not 15%"),
        edit(pricing, "        return amount * 0.85\n", "        return amount * 0.9\n"),
        assistant("WELCOME10 now takes 10% off."),
        user(ASKED_INVENTORY),
        tool("Write", { file_path: inventory, content: INVENTORY_PY }, `Successfully wrote ${inventory}`),
        assistant("src/inventory.py tracks stock per item."),
      ],
    },
    {
      id: SESSION_ELSEWHERE,
      title: TITLE_ELSEWHERE,
      workspace: "/home/dev/billing-not-on-this-machine",
      created: now - 2 * DAY,
      history: [
        user("move invoices from Braintree to Stripe"),
        tool("Bash", { command: "rg -n braintree_invoice billing/" }, "billing/invoices.py:3:import braintree_invoice"),
        assistant("Three call sites use braintree_invoice."),
      ],
    },
  ];

  const index: Json[] = [];
  for (const session of sessions) {
    const file = join(sessionsDir, `${session.id}.json`);
    const document = { sessionId: session.id, title: session.title, workspaceDirectory: session.workspace, history: session.history };
    writeFileSync(file, JSON.stringify(document, undefined, 2));
    const modified = new Date(session.created + 10 * 60_000);
    utimesSync(file, modified, modified);
    index.push({
      sessionId: session.id,
      title: session.title,
      dateCreated: String(session.created),
      workspaceDirectory: session.workspace,
      messageCount: session.history.filter((item) => (item.message as Json).role === "assistant").length,
    });
  }
  writeFileSync(join(sessionsDir, "sessions.json"), JSON.stringify(index, undefined, 2));
  return { store, workspace, pricing };
}
