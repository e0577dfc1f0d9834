/** One log entry from a message and the data the language client passes with it (an error, a
 * response error, a string, an object). Pure. */

function dataText(data: unknown): string {
  if (data instanceof Error) {
    // A ResponseError's code says which JSON-RPC error it was; a plain error's stack where it broke.
    const code = (data as { code?: unknown }).code;
    return typeof code === "number" ? `${data.message} (code ${String(code)})` : (data.stack ?? data.message);
  }
  if (typeof data === "string") {
    return data;
  }
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data); // a cycle
  }
}

export function logText(message: string, data?: unknown): string {
  if (data === undefined || data === null) {
    return message;
  }
  const detail = dataText(data);
  return detail === "" || detail === message ? message : `${message}\n${detail}`;
}
