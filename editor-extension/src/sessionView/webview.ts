/// <reference lib="dom" />
/** The session view's script, in the webview (bundled to dist/sessionView.js, loaded by nonce).
 * No inline handlers: buttons carry `data-action`, one listener posts them to the extension. The
 * next page loads when its button scrolls into sight (or is pressed); earlier ones on demand. */

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface PageMessage {
  type: "page";
  where: "earlier" | "more";
  html: string;
  pager: string;
  first: number;
  end: number;
}

interface TimingMessage {
  type: "timing";
  ms: number;
}

interface TotalMessage {
  type: "total";
  total: number;
  pager: string;
}

const vscode = acquireVsCodeApi();
const body = document.body;
let loading = false;

function number(name: string): number {
  return Number(body.dataset[name] ?? "0");
}

function request(where: "earlier" | "more"): void {
  if (loading) {
    return;
  }
  loading = true;
  vscode.postMessage({ type: where, first: number("first"), end: number("end") });
}

document.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target.closest<HTMLElement>("[data-action]") : null;
  if (target === null) {
    return;
  }
  event.preventDefault();
  const action = target.dataset.action ?? "";
  if (action === "earlier" || action === "more") {
    request(action);
  } else if (action === "openDiff") {
    vscode.postMessage({ type: "openDiff", turn: Number(target.dataset.turn), index: Number(target.dataset.index) });
  } else {
    vscode.postMessage({ type: "action", action });
  }
});

const more = document.getElementById("more");
const earlier = document.getElementById("earlier");
const observer = new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting) && more?.querySelector("button") !== null) {
    request("more");
  }
}, { rootMargin: "600px" });

function onPage(message: PageMessage): void {
  loading = false;
  if (message.where === "more" && more !== null) {
    more.insertAdjacentHTML("beforebegin", message.html);
    more.innerHTML = message.pager;
    body.dataset.end = String(message.end);
  } else if (earlier !== null) {
    // Keep what the reader looks at in place while turns are added above it.
    const before = document.documentElement.scrollHeight;
    earlier.insertAdjacentHTML("afterend", message.html);
    earlier.innerHTML = message.pager;
    body.dataset.first = String(message.first);
    window.scrollBy(0, document.documentElement.scrollHeight - before);
  }
}

/** Turns written since the page was made: the pager at the end offers them. */
function onTotal(message: TotalMessage): void {
  body.dataset.total = String(message.total);
  if (more !== null && !loading) {
    more.innerHTML = message.pager;
  }
}

window.addEventListener("message", (event: MessageEvent<PageMessage | TimingMessage | TotalMessage>) => {
  const message = event.data;
  if (message.type === "page") {
    onPage(message);
  } else if (message.type === "total") {
    onTotal(message);
  } else if (message.type === "timing") {
    body.dataset.firstTurnMs = String(message.ms);
  }
});

function shown(): void {
  const marked = document.querySelector<HTMLElement>(".turn.marked");
  if (marked !== null) {
    marked.scrollIntoView({ block: "start" });
    marked.focus({ preventScroll: true });
  }
  // Two frames: the first turn has been laid out and painted.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      const first = document.querySelector(".turn");
      vscode.postMessage({ type: "shown", turn: first?.getAttribute("data-turn") ?? null });
      if (more !== null) {
        observer.observe(more);
      }
    }),
  );
}

shown();
