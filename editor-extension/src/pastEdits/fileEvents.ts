/** How a file's past reads in List Past Edits: one row per edit, write or read, each fact said
 * once (when, which session, tool, where its text is now). Pure. */

import { ago, oneLine, repeatsTitle, roleIcon, titleOf, type HitItem } from "../shared/format";
import type { FileEvent } from "../shared/protocol";

/** Where an event's text is in the file now: "still at line N", "changed since, at line N",
 * "no longer in the file"; a read or an attached file says so. */
export function eventState(event: FileEvent): string {
  if (event.role !== "edit") {
    return event.role === "attached" ? "attached" : "read";
  }
  if (event.range === null) {
    return "no longer in the file";
  }
  const line = event.range.start.line + 1;
  return event.changed ? `changed since, at line ${line}` : `still at line ${line}`;
}

/** The tool that did it: the recorded name ("Edit", "Write", "Read", "read_file"…), else what
 * the event is ("wrote" for a whole-file write, "edited", "read"). */
function toolName(event: FileEvent): string {
  if (event.tool) {
    return event.tool;
  }
  if (event.role === "edit") {
    return event.hunks.some((hunk) => hunk.replaced === null) ? "wrote" : "edited";
  }
  return event.role;
}

/** A quick pick row: the session and when as the label; tool, state and turn as the description
 * (the state left out when the tool's name already says it: "Read", not "Read · read"); the
 * request below only when it says more than the title. */
export function fileEventItem(event: FileEvent, now?: number): HitItem {
  const tool = toolName(event);
  const state = eventState(event);
  const badges = [tool, ...(state.toLowerCase() === tool.toLowerCase() ? [] : [state]), `turn ${event.turn}`];
  if (event.compacted) {
    badges.push("compacted");
  }
  if (event.status && event.status !== "done") {
    badges.push(event.status);
  }
  return {
    label: `$(${roleIcon(event.role === "edit" ? "edit" : "read")}) ${titleOf(event.title)} · ${ago(event.time, now)}`,
    description: badges.join(" · "),
    detail: event.request && !repeatsTitle(event.request, event.title) ? `“${oneLine(event.request, 160)}”` : "",
  };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The list's title: "pricing.py: 3 edits (2 still in the file) · 1 read". */
export function pastTitle(name: string, events: readonly FileEvent[]): string {
  const edits = events.filter((event) => event.role === "edit");
  const standing = edits.filter((event) => event.range !== null).length;
  const others = events.length - edits.length;
  const parts = [`${count(edits.length, "edit", "edits")} (${standing} still in the file)`];
  if (others > 0) {
    parts.push(count(others, "read", "reads"));
  }
  return `${name}: ${parts.join(" · ")}`;
}
