import {
  addSibling,
  applyFrame,
  type Client,
  type ConnectionState,
  createClient,
  hasGap,
  type Turn,
  withScratchpad,
} from "@agentwire-chat/client";
import type { ClientFrame, OnBusy, QueuedMessage, ServerFrame } from "@agentwire-chat/protocol";
import { type AppState, connectionStatus, viewKey } from "./app-state.js";
import { clientToolsManifest, type NoticeLevel, runClientTool } from "./editor/client-tools.js";
import { graphOfWorkflow } from "./editor/graph-of-workflow.js";
import { AuthRequiredError, createHttpApi } from "./net/http-api.js";
import { initialModel } from "./net/initial-model.js";
import { loadSettings, type Settings, saveSettings } from "./net/settings.js";
import { parseRoute, type Route, routeHash } from "./route.js";
import {
  answerQuestion,
  decideApproval,
  decidePlan,
  failRequest,
  markClientCallDone,
  startLocalTurn,
  undecidePlan,
} from "./state/local-actions.js";
import type { PlanDecisionView } from "./state/plan-view.js";
import { threadFromHistory } from "./state/rebuild-from-history.js";
import { Store } from "./state/store.js";
import { sumThreadCost } from "./state/thread-cost.js";
import { withThreadState } from "./state/thread-list-state.js";
import {
  type ApprovalDecision,
  emptyThread,
  isRunning,
  lastTurn,
  type SendingView,
  type ThreadView,
} from "./state/thread-view.js";

/** How a message sent while a turn runs joins it: wait for the turn, steer it, or stop it and start. */
export type BusyMode = SendingView["mode"];

/**
 * The one place with side effects: the SDK's client owns the socket, reconnect, resume and request
 * correlation; this feeds every server frame through the pure reducer into the store, turns the
 * user's actions into commands, and makes the HTTP calls.
 */
export class ChatController {
  readonly store: Store<AppState>;
  private client: Client;
  private readonly api = createHttpApi(() => this.settings.token);
  private settings: Settings = loadSettings();
  /** Draft keys of messages sent without a thread, by the turn's request_id: its first frames name the thread. */
  private readonly drafts = new Map<string, { key: string; turn: Turn }>();
  /** The turns the client follows for us (and resumes after a drop), by thread. */
  private readonly followed = new Map<string, Turn>();
  /** Turns of messages sent while another turn ran (queued, steering), by thread: they follow their own turn later. */
  private readonly waitingTurns = new Map<string, Set<Turn>>();
  /** Edits on their way, by request_id: the user message they replace (its new sibling once the server names it). */
  private readonly edits = new Map<string, string>();
  private readonly answeredCalls = new Set<string>();
  private manifestSent = false;
  private editorUsed = false;
  private noticeCounter = 0;

  constructor(private readonly location: Location = window.location) {
    this.store = new Store<AppState>({
      connection: "connecting",
      link: { status: "connecting", attempt: 0 },
      authRequired: false,
      route: parseRoute(location.hash),
      threads: [],
      views: {},
      providers: null,
      ...(this.settings.provider !== undefined && { provider: this.settings.provider }),
      ...(this.settings.model !== undefined && { model: this.settings.model }),
      notices: [],
      workflowId: "demo-workflow",
      scratchpadOpen: false,
      memoryOpen: false,
      memory: null,
    });
    this.client = this.connect();
  }

  start(): void {
    window.addEventListener("hashchange", () => this.onRoute(parseRoute(window.location.hash)));
    void this.loadLists();
    this.onRoute(this.state.route);
  }

  get state(): AppState {
    return this.store.get();
  }

  /** Simulates a dropped connection (used by the browser tests and handy when trying reconnects). */
  dropSocket(): void {
    this.client.drop();
  }

  /** Reconnects now instead of waiting out the backoff. */
  retryNow(): void {
    this.client.retryNow();
  }

  // ---- user actions ------------------------------------------------------------------------

  /**
   * Sends a message. While a turn runs on the thread the server queues it (`queue`), lets it join the
   * running turn (`steer`), or stops that turn and starts it next (`interrupt`). `parentMessageId`
   * makes it an edit: it follows that message (null: a new first message), starting a new branch.
   */
  send(text: string, onBusy: BusyMode = "queue", parentMessageId?: string | null): boolean {
    const route = this.state.route;
    const key = viewKey(route);
    if (route.page === "editor") this.announceTools();
    const { provider, model, workflowId } = this.state;
    const client = this.client;
    const busy = route.threadId !== undefined && isRunning(this.state.views[key] ?? emptyThread());
    // Offline, the client keeps the message and sends it on the next socket.
    const turn = client.send({
      content: text,
      onBusy: onBusy satisfies OnBusy,
      ...(parentMessageId !== undefined && { parentMessageId }),
      ...(route.threadId !== undefined && { thread_id: route.threadId }),
      ...(provider !== undefined && { provider }),
      ...(model !== undefined && model !== "" && { model }),
      ...(route.page === "editor" && { chat_context: { kind: "editor", workflow_id: workflowId } }),
    });
    const requestId = turn.requestId ?? "";
    if (busy && route.threadId !== undefined) {
      this.sendWhileBusy(route.threadId, turn, requestId, text, onBusy);
      return true;
    }
    if (route.threadId === undefined) this.drafts.set(requestId, { key, turn });
    else this.followed.set(route.threadId, turn);
    this.updateView(key, (v) => {
      const view = v ?? emptyThread(route.threadId ?? null);
      return startLocalTurn(
        parentMessageId === undefined ? view : branchAt(view, parentMessageId),
        requestId,
        text,
      );
    });
    void turn.threadId.then(
      (threadId) => this.adoptDraft(requestId, threadId),
      () => {},
    );
    void turn.done.then((end) => {
      // Refused before it started (busy, bad_request …): that turn never ran.
      if (client !== this.client || !end.error || turn.lastSeq !== null) return;
      const at = this.drafts.get(requestId)?.key ?? route.threadId ?? key;
      this.drafts.delete(requestId);
      this.updateView(at, (v) =>
        failRequest(
          v ?? emptyThread(route.threadId ?? null),
          requestId,
          `${end.error?.code}: ${end.error?.message}`,
        ),
      );
    });
    return true;
  }

  /**
   * A message sent while a turn runs: it waits as a chip until the server answers `message_queued`
   * (no optimistic turn: the running turn's frames keep going to the running turn).
   */
  private sendWhileBusy(threadId: string, turn: Turn, requestId: string, text: string, mode: BusyMode): void {
    const client = this.client;
    const waiting = this.waitingTurns.get(threadId) ?? new Set<Turn>();
    waiting.add(turn);
    this.waitingTurns.set(threadId, waiting);
    const sending = (v: ThreadView) => (v.sending ?? []).filter((x) => x.requestId !== requestId);
    this.updateView(threadId, (v) => {
      const view = v ?? emptyThread(threadId);
      return { ...view, sending: [...sending(view), { requestId, text, mode }] };
    });
    void turn.done.then((end) => {
      waiting.delete(turn);
      if (client !== this.client) return;
      this.updateView(threadId, (v) => ({
        ...(v ?? emptyThread(threadId)),
        sending: sending(v ?? emptyThread()),
      }));
      // Refused (the queue is full, bad_request …): it never waited.
      if (end.error && turn.lastSeq === null && turn.queued === undefined)
        this.notify(`${end.error.code}: ${end.error.message}`);
    });
  }

  /** Edits a user message: sends `text` after that message's parent, as a new branch beside it. */
  edit(userMessageId: string, text: string): boolean {
    const threadId = this.state.route.threadId;
    const view = threadId ? this.state.views[threadId] : undefined;
    if (!threadId || !view || isRunning(view)) return false;
    const parent = parentOf(view, userMessageId);
    if (parent === undefined) {
      this.notify("This message cannot be edited: its place in the thread is not known.");
      return false;
    }
    const sent = this.send(text, "queue", parent);
    const requestId = lastTurn(this.state.views[threadId] ?? view)?.requestId;
    if (sent && requestId) this.edits.set(requestId, userMessageId);
    return sent;
  }

  /** Answers a user message again: a new answer beside the old one (a new branch), which the page then shows. */
  regenerate(userMessageId: string): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    const client = this.client;
    const turn = client.regenerate(threadId, userMessageId);
    this.followed.set(threadId, turn);
    void turn.done.then((end) => {
      if (client !== this.client || !end.error || turn.lastSeq !== null) return;
      this.notify(`${end.error.code}: ${end.error.message}`);
    });
  }

  /** Takes a message out of the queue before it starts. */
  async cancelQueued(messageId: string): Promise<void> {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    try {
      await this.client.cancelQueued(threadId, messageId);
      this.updateView(threadId, (v) => {
        const view = v ?? emptyThread(threadId);
        const queued = view.queued.filter((q) => q.messageId !== messageId);
        return { ...view, queued: queued.map((q, i) => ({ ...q, position: i + 1 })) };
      });
    } catch (error) {
      const e = error as { code?: string; message?: string };
      // Started meanwhile (not_found): the queue as the server has it.
      this.notify(`${e.code ?? "error"}: ${e.message ?? String(error)}`);
      void this.reloadQueue(threadId);
    }
  }

  /** Shows another branch: `messageId` (a sibling of a shown message) and its newest descendants. */
  async selectBranch(messageId: string): Promise<void> {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    try {
      await this.client.setCurrentLeaf(threadId, messageId);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      this.notify(
        e.code === "busy"
          ? "busy: wait for the running turn to end before switching branches"
          : `${e.code ?? "error"}: ${e.message ?? String(error)}`,
      );
      return;
    }
    await this.reloadBranch(threadId);
  }

  /** Rebuilds the thread's turns from its current branch's rows (and its queue); the rest of the view stays. */
  private async reloadBranch(threadId: string): Promise<void> {
    try {
      const [messages, queued] = await Promise.all([this.api.messages(threadId), this.loadQueue(threadId)]);
      const title = this.state.threads.find((t) => t.id === threadId)?.title;
      const rebuilt = threadFromHistory(threadId, messages, title, queued);
      this.updateView(threadId, (v) => {
        const { skipping: _skipping, ...old } = v ?? emptyThread(threadId);
        return { ...old, ...rebuilt, title: rebuilt.title ?? old.title, lastSeq: old.lastSeq, pending: [] };
      });
    } catch (error) {
      this.onHttpError(error);
    }
  }

  private async reloadQueue(threadId: string): Promise<void> {
    const queued = await this.loadQueue(threadId);
    this.updateView(threadId, (v) => {
      const view = v ?? emptyThread(threadId);
      return { ...view, queued: threadFromHistory(threadId, [], undefined, queued).queued };
    });
  }

  /** `GET /api/threads/:id/queue`; an older server without queues has none. */
  private async loadQueue(threadId: string): Promise<QueuedMessage[]> {
    try {
      return await this.api.queue(threadId);
    } catch (error) {
      if (error instanceof AuthRequiredError) throw error;
      return [];
    }
  }

  stop(): void {
    const threadId = this.state.route.threadId;
    if (threadId) this.command({ command: "stop", data: { thread_id: threadId } });
  }

  /** Continues the open thread's last turn, which a budget or the iteration limit ended, with a fresh budget. */
  continueTurn(): boolean {
    const threadId = this.state.route.threadId;
    if (!threadId) return false;
    // The turn reopens on the server's `agent_state resumed`; a refusal comes back as a notice.
    this.command({ command: "continue_turn", data: { thread_id: threadId } });
    return true;
  }

  answer(toolCallId: string, answer: string): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    this.command({ command: "answer", data: { thread_id: threadId, tool_call_id: toolCallId, answer } });
    this.updateView(threadId, (v) => answerQuestion(v ?? emptyThread(threadId), toolCallId, answer));
  }

  decide(approvalId: string, decision: ApprovalDecision): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    this.command({ command: "tool_approval_response", data: { approval_id: approvalId, decision } });
    this.updateView(threadId, (v) => decideApproval(v ?? emptyThread(threadId), approvalId, decision));
  }

  /** Approve a draft plan, or send it back with feedback; the server runs or revises it in a new turn. */
  decidePlan(toolCallId: string, planId: string, choice: PlanDecisionView): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    const feedback = choice.feedback?.trim();
    const client = this.client;
    const turn = client.decidePlan({
      thread_id: threadId,
      plan_id: planId,
      decision: choice.decision,
      ...(feedback && { feedback }),
    });
    this.followed.set(threadId, turn);
    this.updateView(threadId, (v) => decidePlan(v ?? emptyThread(threadId), toolCallId, choice));
    void turn.done.then((end) => {
      // Refused: the draft waits for a decision again.
      if (client !== this.client || !end.error || turn.lastSeq !== null) return;
      this.updateView(threadId, (v) => undecidePlan(v ?? emptyThread(threadId), toolCallId));
      this.notify(`${end.error.code}: ${end.error.message}`);
    });
  }

  toggleScratchpad(open = !this.state.scratchpadOpen): void {
    this.set((s) => ({ ...s, scratchpadOpen: open, memoryOpen: open ? false : s.memoryOpen }));
  }

  /** Deletes every item of the open thread's scratchpad; the server's `scratchpad_patch` empties the panel. */
  async clearScratchpad(): Promise<void> {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    try {
      await this.api.clearScratchpad(threadId);
      // Also when the socket is down: the server appends the patch for a resume, this page knows now.
      this.updateView(threadId, (v) => ({ ...(v ?? emptyThread(threadId)), scratchpad: [] }));
    } catch (error) {
      this.onHttpError(error);
    }
  }

  /** Shows or hides the memory panel (in the scratchpad's place), reading the memory anew on open. */
  toggleMemory(open = !this.state.memoryOpen): void {
    this.set((s) => ({ ...s, memoryOpen: open, scratchpadOpen: open ? false : s.scratchpadOpen }));
    if (open) void this.loadMemory();
  }

  /** Forgets one key of the user's memory, or every key when none is given. */
  async forgetMemory(key?: string): Promise<void> {
    try {
      await (key === undefined ? this.api.clearMemory() : this.api.forgetMemory(key));
    } catch (error) {
      this.onHttpError(error);
    }
    await this.loadMemory();
  }

  setToken(token: string): void {
    this.settings = { ...this.settings, token: token.trim() };
    saveSettings(this.settings);
    this.set((s) => ({ ...s, authRequired: false }));
    this.reconnect();
    void this.loadLists();
  }

  forgetToken(): void {
    const { token: _token, ...rest } = this.settings;
    this.settings = rest;
    saveSettings(this.settings);
    this.reconnect();
    void this.loadLists();
  }

  choose(provider: string | undefined, model: string | undefined): void {
    this.settings = { ...this.settings, provider, model };
    saveSettings(this.settings);
    this.set((s) => ({ ...s, provider, model }));
  }

  setWorkflowId(workflowId: string): void {
    this.set((s) => ({ ...s, workflowId }));
  }

  notify(text: string, level: NoticeLevel = "error"): void {
    const notice = { id: ++this.noticeCounter, text, level };
    this.set((s) => ({ ...s, notices: [...s.notices.slice(-4), notice] }));
  }

  dismiss(id: number): void {
    this.set((s) => ({ ...s, notices: s.notices.filter((n) => n.id !== id) }));
  }

  // ---- server side -------------------------------------------------------------------------

  /** A client for the current token, its frames, connection state and live thread states wired to the store. */
  private connect(): Client {
    const base = `${this.location.protocol}//${this.location.host}`;
    const token = this.settings.token;
    const client = createClient({ url: base, ...(token && { token }) });
    const mine = (then: () => void) => {
      if (client === this.client) then();
    };
    client.onConnection((link) => mine(() => this.onConnection(link)));
    client.onFrame((frame) => mine(() => this.onFrame(frame)));
    // Live badges in the thread list for every thread of ours, open or not; the client re-subscribes.
    client.threads.subscribe((state) =>
      mine(() => {
        const threads = withThreadState(this.state.threads, state);
        if (threads) this.set((s) => ({ ...s, threads }));
        else void this.loadThreads();
      }),
    );
    return client;
  }

  /** A new client (a new token): the old one closes; what the page shows is resumed on the new one. */
  private reconnect(): void {
    const old = this.client;
    this.followed.clear();
    this.client = this.connect();
    old.close();
  }

  private onConnection(link: ConnectionState): void {
    this.set((s) => ({ ...s, link, connection: connectionStatus(link) }));
    if (link.status !== "open") return;
    this.manifestSent = false;
    if (this.editorUsed) this.announceTools();
    // The client resumes the turns it follows; catch up on every other thread we show or that ran.
    const current = this.state.route.threadId;
    for (const [key, view] of Object.entries(this.state.views)) {
      const threadId = view.threadId;
      if (threadId && (key === current || isRunning(view))) this.follow(threadId);
    }
  }

  private onFrame(frame: ServerFrame): void {
    if (frame.type === "pong" || frame.type === "thread_state") return;
    if (frame.type === "workflow_updated") {
      // Sent only to a socket whose editor has this workflow open (or had the id build_workflow
      // replaced by a new workflow): draw it, and edit it from now on.
      const { id, graph } = frame.workflow;
      this.set((s) => ({ ...s, workflowId: id, graph: graphOfWorkflow(graph) }));
      return;
    }
    // An error that answers a request (no seq) is its command's or turn's, which say it.
    if (frame.type === "error" && frame.seq === undefined && frame.request_id !== undefined) return;
    const threadId = "thread_id" in frame ? frame.thread_id : undefined;
    if (threadId === undefined) {
      if (frame.type === "error") this.notify(`${frame.code}: ${frame.message}`);
      return;
    }
    const requestId = "request_id" in frame ? frame.request_id : undefined;
    if (requestId !== undefined) this.adoptDraft(requestId, threadId);
    const wasRunning = isRunning(this.state.views[threadId] ?? emptyThread());
    const replaying = this.followed.get(threadId)?.caughtUp === false;
    this.updateView(threadId, (v) => {
      const before = v ?? emptyThread(threadId);
      const shown = replaying && offBranch(before, frame) ? { ...before, skipping: "off-branch" } : before;
      return withOwnFrame(applyFrame(shown, frame), frame, this.edits);
    });

    const view = this.state.views[threadId];
    if (!view) return;
    if (hasGap(view) && !this.live(threadId)) this.follow(threadId);
    this.runClientCalls(threadId, view);
    if (wasRunning && !isRunning(view)) {
      void this.loadThreads();
      void this.loadCost(threadId);
      // The turn may have written to memory.
      if (this.state.memoryOpen) void this.loadMemory();
    }
  }

  /** The server created the thread of our draft: move the draft under its id and show its address. */
  private adoptDraft(requestId: string, threadId: string): void {
    const draft = this.drafts.get(requestId);
    if (draft === undefined) return;
    this.drafts.delete(requestId);
    const { key, turn } = draft;
    this.followed.set(threadId, turn);
    const local = this.state.views[key];
    this.set((s) => {
      const { [key]: _moved, ...views } = s.views;
      // Frames of the thread that came first are newer than the draft: keep them.
      const adopted = views[threadId] ?? (local && { ...local, threadId });
      return { ...s, views: adopted ? { ...views, [threadId]: adopted } : views };
    });
    if (viewKey(this.state.route) === key) {
      const route: Route = { page: this.state.route.page, threadId };
      this.set((s) => ({ ...s, route }));
      history.replaceState(null, "", routeHash(route));
    }
    void this.loadThreads();
  }

  /** Runs the client tools the server asked for, once each, after any replay has ended. */
  private runClientCalls(threadId: string, view: ThreadView): void {
    if (this.followed.get(threadId)?.caughtUp === false) return;
    const calls = Object.values(lastTurn(view)?.clientCalls ?? {});
    for (const call of calls) {
      if (call.done || this.answeredCalls.has(call.id)) continue;
      this.answeredCalls.add(call.id);
      const outcome = runClientTool(call.name, call.args, {
        showGraph: (graph) => this.set((s) => ({ ...s, graph })),
        notify: (text, level) => this.notify(text, level),
      });
      this.command({ command: "tool_result", data: { tool_call_id: call.id, ...outcome } });
      this.updateView(threadId, (v) => markClientCallDone(v ?? view, call.id));
    }
  }

  /** True while the client follows a turn of the thread (it resumes that one itself). */
  private live(threadId: string): boolean {
    const turn = this.followed.get(threadId);
    if (turn !== undefined && !turn.isDone) return true;
    // A queued message's turn that started follows the thread too (the client resumes it).
    for (const waiting of this.waitingTurns.get(threadId) ?? []) if (waiting.lastSeq !== null) return true;
    return false;
  }

  /** Has the client follow the thread's running (or last) turn: it replays what we missed, and resumes after drops. */
  private follow(threadId: string): void {
    if (this.live(threadId)) return;
    this.followed.set(threadId, this.client.resume(threadId));
  }

  private announceTools(): void {
    this.editorUsed = true;
    if (this.manifestSent || !this.client.connected) return;
    // Per socket: every open announces again.
    this.manifestSent = true;
    this.command({ command: "client_tools_manifest", data: { tools: clientToolsManifest } });
  }

  // ---- navigation and HTTP -----------------------------------------------------------------

  private onRoute(route: Route): void {
    this.set((s) => ({ ...s, route }));
    if (route.page === "editor") this.announceTools();
    if (route.threadId) void this.openThread(route.threadId);
  }

  /** Shows a thread: from memory when we have it, else from its stored rows; then catches up live. */
  private async openThread(threadId: string): Promise<void> {
    if (!this.state.views[threadId]) {
      try {
        const [messages, queued] = await Promise.all([this.api.messages(threadId), this.loadQueue(threadId)]);
        const title = this.state.threads.find((t) => t.id === threadId)?.title;
        // Frames may have arrived while the rows loaded; they are newer, so keep them.
        if (!this.state.views[threadId]) {
          this.updateView(threadId, () => threadFromHistory(threadId, messages, title, queued));
        }
      } catch (error) {
        this.onHttpError(error);
        return;
      }
    }
    this.follow(threadId);
    void this.loadScratchpad(threadId);
    void this.loadCost(threadId);
  }

  /** The thread's cost so far, from the server's ledger. */
  private async loadCost(threadId: string): Promise<void> {
    try {
      const cost = sumThreadCost(await this.api.usage(threadId));
      this.updateView(threadId, (v) => ({ ...(v ?? emptyThread(threadId)), cost }));
    } catch (error) {
      if (error instanceof AuthRequiredError) this.onHttpError(error);
    }
  }

  private async loadMemory(): Promise<void> {
    try {
      const memory = await this.api.memory();
      this.set((s) => ({ ...s, memory }));
    } catch (error) {
      this.onHttpError(error);
    }
  }

  /** The thread's scratchpad; patches that came meanwhile are merged, the newer copy of an item wins. */
  private async loadScratchpad(threadId: string): Promise<void> {
    try {
      const items = await this.api.scratchpad(threadId);
      this.updateView(threadId, (v) => withScratchpad(v ?? emptyThread(threadId), items));
    } catch (error) {
      // The panel stays as the live patches make it; only a lost token needs the user.
      if (error instanceof AuthRequiredError) this.onHttpError(error);
    }
  }

  private async loadLists(): Promise<void> {
    await Promise.all([this.loadThreads(), this.loadProviders()]);
  }

  private async loadThreads(): Promise<void> {
    try {
      const threads = await this.api.threads();
      const sorted = [...threads].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
      this.set((s) => ({ ...s, threads: sorted }));
    } catch (error) {
      this.onHttpError(error);
    }
  }

  private async loadProviders(): Promise<void> {
    try {
      const answer = await this.api.providers();
      this.set((s) => {
        const { provider, model } = initialModel(answer, s);
        return { ...s, providers: answer.providers, provider, model };
      });
    } catch (error) {
      // Without a provider list the picker hides and the server's default is used.
      if (error instanceof AuthRequiredError) this.onHttpError(error);
    }
  }

  private onHttpError(error: unknown): void {
    if (error instanceof AuthRequiredError) this.set((s) => ({ ...s, authRequired: true }));
    else this.notify(error instanceof Error ? error.message : String(error));
  }

  // ---- plumbing ----------------------------------------------------------------------------

  /** Sends a command (queued by the client while offline); a refusal or a drop that lost it is a notice. */
  private command(frame: ClientFrame): void {
    const client = this.client;
    client.command(frame).catch((error: { code?: string; message?: string }) => {
      if (client === this.client) this.notify(`${error.code}: ${error.message}`);
    });
  }

  private updateView(key: string, update: (view: ThreadView | undefined) => ThreadView): void {
    this.set((s) => ({ ...s, views: { ...s.views, [key]: update(s.views[key]) } }));
  }

  private set(change: (s: AppState) => AppState): void {
    this.store.update(change);
  }
}

/** The view cut to where a message sent after `parent` goes: the turns after the parent's turn were another branch. */
function branchAt(view: ThreadView, parent: string | null): ThreadView {
  const at = parent === null ? -1 : view.turns.findIndex((t) => t.answerMessageId === parent);
  if (parent !== null && at < 0) return view;
  return { ...view, turns: view.turns.slice(0, at + 1) };
}

/** What an edit of a user message follows: its stored parent, else the answer of the turn before it (null: the first). */
export function parentOf(view: ThreadView, userMessageId: string): string | null | undefined {
  const stored = view.parents?.[userMessageId];
  if (stored !== undefined) return stored;
  const at = view.turns.findIndex((t) => (t.user?.id ?? t.userMessageId) === userMessageId);
  if (at < 0) return undefined;
  if (at === 0) return null;
  return view.turns[at - 1]?.answerMessageId;
}

/**
 * A replayed turn (a resume after opening a thread from its rows) that is not on the branch shown:
 * the server replays the thread's last turn whatever its branch. Its frames are skipped.
 */
export function offBranch(view: ThreadView, frame: ServerFrame): boolean {
  const last = lastTurn(view);
  if (!last?.settled || view.skipping !== undefined) return false;
  if (frame.type === "message" && frame.message.role === "user" && !frame.steered) {
    const { id, parent_message_id: parent } = frame.message;
    if (parent === undefined || view.turns.some((t) => t.user?.id === id)) return false;
    // A new turn that continues the branch shown is not a replay of another branch.
    return parent !== (last.answerMessageId ?? null);
  }
  // A regenerate's turn (no user message frame) of an answer the rows already hold, or of another branch.
  if (frame.type === "turn_started") {
    const answered = view.turns.find((t) => (t.user?.id ?? t.userMessageId) === frame.user_message_id);
    return answered === undefined || answered.settled === true;
  }
  return false;
}

/** What the page adds to the client's reducer for its own messages: queued texts, edits' siblings, parents. */
function withOwnFrame(view: ThreadView, frame: ServerFrame, edits: Map<string, string>): ThreadView {
  const requestId = "request_id" in frame ? frame.request_id : undefined;
  const sending = requestId === undefined ? undefined : view.sending?.find((x) => x.requestId === requestId);
  let next = view;
  if (sending) next = { ...next, sending: (next.sending ?? []).filter((x) => x !== sending) };
  if (frame.type === "message_queued" && sending) {
    next = {
      ...next,
      queued: next.queued.map((q) =>
        q.messageId === frame.message_id && q.content === "" ? { ...q, content: sending.text } : q,
      ),
    };
  }
  if (frame.type === "message" && frame.message.role === "user") {
    const { id, parent_message_id: parent } = frame.message;
    if (parent !== undefined) next = { ...next, parents: { ...next.parents, [id]: parent } };
    const displaced = requestId === undefined ? undefined : edits.get(requestId);
    if (displaced !== undefined && requestId !== undefined) {
      edits.delete(requestId);
      next = addSibling(next, displaced, id);
    }
  }
  return next;
}
