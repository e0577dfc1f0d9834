/** Deja: Search in View — the results TreeView (hits grouped by session, the matched words
 * highlighted, "Load more"; or the files a topic touched) and the searches behind it. */

import * as vscode from "vscode";
import { roleIcon } from "../shared/format";
import { Commands, Methods, type FilesResult, type SearchHit, type SearchResult, type TeamStatus, type TouchedFile } from "../shared/protocol";
import {
  countText,
  emptyFilters,
  fileRow,
  filesCountText,
  filesParams,
  groupDescription,
  groupLabel,
  hitDescription,
  hitLabel,
  SearchPages,
  searchParams,
  type SearchFilters,
  type SessionGroup,
} from "./searchView";
import { SearchInputView, INPUT_VIEW } from "./searchViewInput";
import { defaultScope } from "../server/settings";
import { errorText, type Sidecar } from "../server/sidecar";

export const RESULTS_VIEW = "deja.searchResults";

type Node =
  | { kind: "group"; group: SessionGroup; sessionId: string; title: string }
  | { kind: "hit"; hit: SearchHit }
  | { kind: "more"; left: number }
  | { kind: "file"; file: TouchedFile }
  | { kind: "fileSession"; sessionId: string; title: string; events: number }
  | { kind: "message"; text: string };

export class SearchView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly tree: vscode.TreeView<Node>;
  private readonly input: SearchInputView;
  private readonly subscriptions: vscode.Disposable[] = [];
  private filters: SearchFilters = emptyFilters(defaultScope());
  private pages: SearchPages | undefined;
  private files: FilesResult | undefined;
  private problem: string | undefined;
  private team: TeamStatus | undefined;
  private counts = "";
  private ticket = 0;
  private loading = false;

  constructor(private readonly sidecar: Sidecar) {
    this.tree = vscode.window.createTreeView(RESULTS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.input = new SearchInputView(
      () => ({ filters: this.filters, team: this.team, counts: this.counts }),
      (filters) => void this.search(filters),
    );
    this.subscriptions.push(
      this.tree,
      this.input,
      sidecar.onDidChangeState((state) => {
        if (state === "running") {
          void this.askTeam();
        }
      }),
      // A search asked while the first pass ran is asked again once it ends.
      sidecar.onIndexing((event) => {
        if (event.kind === "end" && this.filters.query.trim() !== "") {
          void this.search(this.filters);
        }
      }),
    );
    void this.askTeam();
  }

  /** "Deja: Search in View": the view focused, the editor's selection (one line) as the query. */
  async focus(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const selected = editor !== undefined && !editor.selection.isEmpty ? editor.document.getText(editor.selection).replace(/\s+/g, " ").trim() : "";
    await vscode.commands.executeCommand(`${INPUT_VIEW}.focus`);
    if (selected !== "") {
      await this.search({ ...this.filters, query: selected.slice(0, 200) });
    }
    this.input.post(true);
  }

  private async askTeam(): Promise<void> {
    try {
      this.team = await this.sidecar.request<TeamStatus>(Methods.teamStatus, {});
    } catch (error) {
      this.team = { configured: false, name: null, reason: `Deja's server did not say (${errorText(error)})` };
    }
    this.input.post(false);
  }

  private show(counts: string): void {
    this.counts = counts; // shown under the inputs, as VS Code's search shows its count
    this.input.post(false);
    this.changeEmitter.fire(undefined);
  }

  async search(filters: SearchFilters): Promise<void> {
    this.filters = filters;
    const ticket = ++this.ticket;
    this.problem = undefined;
    if (filters.query.trim() === "") {
      this.pages = undefined;
      this.files = undefined;
      this.show("");
      return;
    }
    try {
      if (filters.mode === "files") {
        await this.searchFiles(filters, ticket);
      } else {
        const pages = new SearchPages(filters);
        const result = await this.sidecar.request<SearchResult>(Methods.search, searchParams(filters, 0));
        if (ticket !== this.ticket) {
          return; // a newer search was asked meanwhile
        }
        pages.add(result);
        this.pages = pages;
        this.files = undefined;
        this.show([countText(pages), ...pages.notes].join(" · "));
      }
    } catch (error) {
      if (ticket === this.ticket) {
        this.pages = undefined;
        this.files = undefined;
        this.problem = errorText(error);
        this.show("");
      }
    }
  }

  private async searchFiles(filters: SearchFilters, ticket: number): Promise<void> {
    const { params, refusal } = filesParams(filters);
    if (params === undefined) {
      this.pages = undefined;
      this.files = undefined;
      this.problem = refusal;
      this.show("");
      return;
    }
    const result = await this.sidecar.request<FilesResult>(Methods.files, params);
    if (ticket !== this.ticket) {
      return;
    }
    this.pages = undefined;
    this.files = result;
    this.show([filesCountText(result.total, result.files.length, result.sessions, filters.query), ...result.notes].join(" · "));
  }

  /** The "Load more" row: the next page, added to the groups already shown. */
  async loadMore(): Promise<void> {
    const pages = this.pages;
    if (pages === undefined || !pages.hasMore || this.loading) {
      return;
    }
    const ticket = this.ticket;
    this.loading = true;
    try {
      const result = await this.sidecar.request<SearchResult>(Methods.search, searchParams(pages.filters, pages.nextOffset));
      if (ticket === this.ticket) {
        pages.add(result);
        this.show([countText(pages), ...pages.notes].join(" · "));
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Deja: cannot load more hits: ${errorText(error)}`);
    } finally {
      this.loading = false;
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "group": {
        const item = new vscode.TreeItem(groupLabel(node.group), vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.group.key}`;
        item.description = groupDescription(node.group);
        item.contextValue = "searchSession";
        item.iconPath = new vscode.ThemeIcon("comment-discussion");
        item.tooltip = `${groupLabel(node.group)}\n${node.group.project} · ${node.sessionId}`;
        return item;
      }
      case "hit": {
        const { label, highlights } = hitLabel(node.hit);
        const item = new vscode.TreeItem({ label, highlights }, vscode.TreeItemCollapsibleState.None);
        item.description = hitDescription(node.hit);
        item.iconPath = new vscode.ThemeIcon(roleIcon(node.hit.role));
        item.tooltip = node.hit.snippet_text;
        item.command = { title: "Open Session", command: Commands.openSession, arguments: [node.hit.session_id, node.hit.turn] };
        return item;
      }
      case "more": {
        const item = new vscode.TreeItem(`Load more (${node.left} more hits)`, vscode.TreeItemCollapsibleState.None);
        item.id = "more";
        item.iconPath = new vscode.ThemeIcon("ellipsis");
        item.command = { title: "Load More", command: Commands.searchViewLoadMore };
        return item;
      }
      case "file":
        return this.fileItem(node.file);
      case "fileSession": {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.None);
        item.description = `${node.events} ${node.events === 1 ? "event" : "events"}`;
        item.iconPath = new vscode.ThemeIcon("comment-discussion");
        item.contextValue = "searchSession";
        item.command = { title: "Open Session", command: Commands.openSession, arguments: [node.sessionId] };
        return item;
      }
      case "message": {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon("warning");
        return item;
      }
    }
  }

  private fileItem(file: TouchedFile): vscode.TreeItem {
    const { label, description } = fileRow(file);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `file:${file.path}`;
    item.description = description;
    item.resourceUri = vscode.Uri.file(file.path);
    item.iconPath = vscode.ThemeIcon.File;
    item.tooltip = file.path;
    item.command = { title: "Open File", command: "vscode.open", arguments: [vscode.Uri.file(file.path)] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (node === undefined) {
      if (this.problem !== undefined) {
        return [{ kind: "message", text: this.problem }];
      }
      if (this.files !== undefined) {
        return this.files.files.map((file) => ({ kind: "file", file }));
      }
      if (this.pages === undefined) {
        return [];
      }
      const groups: Node[] = this.pages.groups().map((group) => ({ kind: "group", group, sessionId: group.sessionId, title: group.title }));
      if (this.pages.hasMore) {
        groups.push({ kind: "more", left: (this.pages.total ?? 0) - this.pages.hits.length });
      }
      return groups;
    }
    if (node.kind === "group") {
      return node.group.hits.map((hit) => ({ kind: "hit", hit }));
    }
    if (node.kind === "file") {
      return node.file.sessions.map((session) => ({ kind: "fileSession", sessionId: session.session_id, title: session.title, events: session.events }));
    }
    return [];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.changeEmitter.dispose();
  }
}
