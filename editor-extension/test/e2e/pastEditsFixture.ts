/** More of a file's past for pastEdits.test.ts: a `cn`-titled session (its title is its request)
 * that wrote src/shipping.py, one line of which was changed since on disk. */

import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assistant, tool, user, type Fixture } from "./fixture";

export const SESSION_SHIPPING = "e5f4a7b6-9d0c-4a1b-8c2d-4e5f6a7b8c05";
/** `cn` titles a session with its first request: the hover must not say it twice. */
export const ASKED_SHIPPING = "Add free shipping over 50";
export const SHIPPING_WRITTEN = `"""Shipping costs."""

FREE_OVER = 50


def shipping(total):
    if total >= FREE_OVER:
        return 0
    return 4.99
`;
/** The line the Write wrote, as a person changed it since. */
export const CHANGED_LINE = "    return 5.49";
export const UNCHANGED_LINE = "if total >= FREE_OVER:";

export function writeShippingSession(fixture: Fixture, now: number = Date.now()): void {
  const shipping = join(fixture.workspace, "src", "shipping.py");
  writeFileSync(shipping, SHIPPING_WRITTEN.replace("    return 4.99", CHANGED_LINE));
  const file = join(fixture.store, "sessions", `${SESSION_SHIPPING}.json`);
  const history = [
    user(ASKED_SHIPPING),
    tool("Write", { file_path: shipping, content: SHIPPING_WRITTEN }, `Successfully wrote ${shipping}`),
    assistant("src/shipping.py: free over 50, else 4.99."),
  ];
  writeFileSync(file, JSON.stringify({ sessionId: SESSION_SHIPPING, title: ASKED_SHIPPING, workspaceDirectory: fixture.workspace, history }, undefined, 2));
  const modified = new Date(now - 2 * 3_600_000);
  utimesSync(file, modified, modified);
}
