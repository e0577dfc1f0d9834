/** `deja-session:` documents: one read-only markdown document per session. Pure. */

export const SESSION_SCHEME = "deja-session";
export const EDIT_SCHEME = "deja-edit";

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isSessionId(value: unknown): value is string {
  return typeof value === "string" && ID.test(value);
}

/** A file name safe on every OS, from a session title. */
export function slug(title: string | null | undefined, max = 60): string {
  const clean = (title ?? "")
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\\/:*?"<>|#%\u0000-\u001f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const cut = clean.length > max ? clean.slice(0, max).trim() : clean;
  return cut === "" ? "Untitled session" : cut;
}

/** Path and query of a session's document. The tab shows the path's name. */
export function sessionDocument(id: string, title?: string | null): { path: string; query: string } {
  return { path: `/${slug(title)} · ${id.slice(0, 8)}.md`, query: `id=${encodeURIComponent(id)}` };
}

/** The session id in a `deja-session:` document's query. */
export function sessionIdOf(query: string): string | undefined {
  for (const part of query.split("&")) {
    const [key, value] = part.split("=", 2);
    if (key === "id" && value !== undefined) {
      const id = decodeURIComponent(value);
      return isSessionId(id) ? id : undefined;
    }
  }
  return undefined;
}

/** The zero-based line of `## Turn N` in the server's session markdown (0 when absent). */
export function turnLine(markdown: string, turn: number | undefined): number {
  if (turn === undefined) {
    return 0;
  }
  const lines = markdown.split("\n");
  const heading = `## Turn ${turn}`;
  const index = lines.findIndex((line) => line === heading || line.startsWith(`${heading} `));
  return index < 0 ? 0 : index;
}

/** The session's title from the markdown's first `# ` heading. */
export function markdownTitle(markdown: string): string | undefined {
  const line = markdown.split("\n").find((text) => text.startsWith("# "));
  return line?.slice(2).trim() || undefined;
}
