import { applyFrame, hasGap, withScratchpad } from "@agentwire/client";
import type { ClientFrame, ServerFrame, ServerFrameOf } from "@agentwire/protocol";
import type { AppState } from "./app-state.js";
import { viewKey } from "./app-state.js";
import { clientToolsManifest, type NoticeLevel, runClientTool } from "./editor/client-tools.js";
import { AuthRequiredError, createHttpApi } from "./net/http-api.js";
import { initialModel } from "./net/initial-model.js";
import { ReconnectingSocket } from "./net/reconnecting-socket.js";
import { loadSettings, type Settings, saveSettings } from "./net/settings.js";
import { subprotocols } from "./net/subprotocols.js";
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
  type ThreadView,
} from "./state/thread-view.js";

/**
 * The one place with side effects: it owns the socket and HTTP calls, feeds server frames through the
 * pure reducer into the store, and turns the user's actions into commands.
 */
export class ChatController {
  readonly store: Store<AppState>;
  private readonly socket: ReconnectingSocket;
  private readonly api = createHttpApi(() => this.settings.token);
  private settings: Settings = loadSettings();
  /** Draft keys of messages sent without a thread, in send order: `thread` frames come back in it. */
  private draftQueue: string[] = [];
  /** Threads between our resume_chat and its chat_resumed: client tools wait until the replay ends. */
  private readonly replaying = new Set<string>();
  private readonly answeredCalls = new Set<string>();
  private manifestSent = false;
  private editorUsed = false;
  private requestCounter = 0;
  /** plan_decisions sent, by request_id: a refusal brings the draft's buttons back. */
  private readonly planDecisions = new Map<string, { threadId: string; toolCallId: string }>();
  private noticeCounter = 0;

  constructor(location: Location = window.location) {
    this.store = new Store<AppState>({
      connection: "connecting",
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
    const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.socket = new ReconnectingSocket({
      url: wsUrl,
      protocols: () => subprotocols(this.settings.token),
      onFrame: (frame) => this.onFrame(frame),
      onOpen: () => this.onOpen(),
      onStatus: (connection) => this.set((s) => ({ ...s, connection })),
    });
  }

  start(): void {
    window.addEventListener("hashchange", () => this.onRoute(parseRoute(window.location.hash)));
    this.socket.connect();
    void this.loadLists();
    this.onRoute(this.state.route);
  }

  get state(): AppState {
    return this.store.get();
  }

  /** Simulates a dropped connection (used by the browser tests and handy when trying reconnects). */
  dropSocket(): void {
    this.socket.drop();
  }

  // ---- user actions ------------------------------------------------------------------------

  send(text: string): boolean {
    const route = this.state.route;
    const key = viewKey(route);
    if (route.page === "editor") this.announceTools();
    const requestId = `r${++this.requestCounter}-${Math.random().toString(36).slice(2, 8)}`;
    const { provider, model, workflowId } = this.state;
    const sent = this.command({
      command: "chat_message",
      request_id: requestId,
      data: {
        content: text,
        ...(route.threadId !== undefined && { thread_id: route.threadId }),
        ...(provider !== undefined && { provider }),
        ...(model !== undefined && model !== "" && { model }),
        ...(route.page === "editor" && { chat_context: { kind: "editor", workflow_id: workflowId } }),
      },
    });
    if (!sent) return false;
    if (route.threadId === undefined) this.draftQueue.push(key);
    this.updateView(key, (v) => startLocalTurn(v ?? emptyThread(route.threadId ?? null), requestId, text));
    return true;
  }

  stop(): void {
    const threadId = this.state.route.threadId;
    if (threadId) this.command({ command: "stop", data: { thread_id: threadId } });
  }

  /** Continues the open thread's last turn, which a budget or the iteration limit ended, with a fresh budget. */
  continueTurn(): boolean {
    const threadId = this.state.route.threadId;
    if (!threadId) return false;
    const requestId = `c${++this.requestCounter}-${Math.random().toString(36).slice(2, 8)}`;
    // The turn reopens on the server's `agent_state resumed`; a refusal comes back as a notice.
    return this.command({ command: "continue_turn", request_id: requestId, data: { thread_id: threadId } });
  }

  answer(toolCallId: string, answer: string): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    if (
      this.command({ command: "answer", data: { thread_id: threadId, tool_call_id: toolCallId, answer } })
    ) {
      this.updateView(threadId, (v) => answerQuestion(v ?? emptyThread(threadId), toolCallId, answer));
    }
  }

  decide(approvalId: string, decision: ApprovalDecision): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    if (this.command({ command: "tool_approval_response", data: { approval_id: approvalId, decision } })) {
      this.updateView(threadId, (v) => decideApproval(v ?? emptyThread(threadId), approvalId, decision));
    }
  }

  /** Approve a draft plan, or send it back with feedback; the server runs or revises it in a new turn. */
  decidePlan(toolCallId: string, planId: string, choice: PlanDecisionView): void {
    const threadId = this.state.route.threadId;
    if (!threadId) return;
    const feedback = choice.feedback?.trim();
    const requestId = `p${++this.requestCounter}-${Math.random().toString(36).slice(2, 8)}`;
    const sent = this.command({
      command: "plan_decision",
      request_id: requestId,
      data: {
        thread_id: threadId,
        plan_id: planId,
        decision: choice.decision,
        ...(feedback && { feedback }),
      },
    });
    if (!sent) return;
    this.planDecisions.set(requestId, { threadId, toolCallId });
    this.updateView(threadId, (v) => decidePlan(v ?? emptyThread(threadId), toolCallId, choice));
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
    this.socket.restart();
    void this.loadLists();
  }

  forgetToken(): void {
    const { token: _token, ...rest } = this.settings;
    this.settings = rest;
    saveSettings(this.settings);
    this.socket.restart();
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

  private onOpen(): void {
    this.manifestSent = false;
    this.replaying.clear();
    if (this.editorUsed) this.announceTools();
    // Live badges in the thread list for every thread of ours, open or not; a new socket asks anew.
    this.socket.send({ command: "subscribe_threads", data: {} });
    // Catch up on every turn we were showing or that was still running when the socket dropped.
    const current = this.state.route.threadId;
    for (const [key, view] of Object.entries(this.state.views)) {
      if (view.threadId && (key === current || isRunning(view))) this.resume(view.threadId);
    }
  }

  private onFrame(frame: ServerFrame): void {
    if (frame.type === "pong") return;
    if (frame.type === "thread_state") {
      this.onThreadState(frame);
      return;
    }
    if (frame.type === "error" && frame.request_id && this.failRequest(frame)) return;
    if (frame.type === "error" && frame.request_id && this.failPlanDecision(frame)) return;
    // The decision's turn started (its user message echoes the request_id): nothing to take back.
    if (frame.type === "message" && frame.request_id) this.planDecisions.delete(frame.request_id);
    const threadId = "thread_id" in frame ? frame.thread_id : undefined;
    if (threadId === undefined) {
      if (frame.type === "error") this.notify(`${frame.code}: ${frame.message}`);
      return;
    }
    if (frame.type === "thread" && !this.state.views[threadId]) this.adoptDraft(threadId);
    const wasRunning = isRunning(this.state.views[threadId] ?? emptyThread());
    this.updateView(threadId, (v) => applyFrame(v ?? emptyThread(threadId), frame));
    if (frame.type === "chat_resumed") this.replaying.delete(threadId);

    const view = this.state.views[threadId];
    if (!view) return;
    if (hasGap(view) && !this.replaying.has(threadId)) this.resume(threadId);
    this.runClientCalls(threadId, view);
    if (wasRunning && !isRunning(view)) {
      void this.loadThreads();
      void this.loadCost(threadId);
      // The turn may have written to memory.
      if (this.state.memoryOpen) void this.loadMemory();
    }
  }

  /** A thread's live state changed (here or in another tab): its badge in the list follows. */
  private onThreadState(frame: ServerFrameOf<"thread_state">): void {
    const threads = withThreadState(this.state.threads, frame);
    if (threads) this.set((s) => ({ ...s, threads }));
    else void this.loadThreads();
  }

  /** An `error` answering one of our chat_messages: that turn never started. */
  private failRequest(frame: ServerFrameOf<"error">): boolean {
    for (const [key, view] of Object.entries(this.state.views)) {
      if (!view.turns.some((t) => t.requestId === frame.request_id && t.running)) continue;
      this.draftQueue = this.draftQueue.filter((k) => k !== key || view.threadId !== null);
      this.updateView(key, (v) =>
        failRequest(v ?? view, frame.request_id ?? "", `${frame.code}: ${frame.message}`),
      );
      return true;
    }
    return false;
  }

  /** An `error` answering one of our plan_decisions: the draft waits for a decision again. */
  private failPlanDecision(frame: ServerFrameOf<"error">): boolean {
    const sent = this.planDecisions.get(frame.request_id ?? "");
    if (!sent) return false;
    this.planDecisions.delete(frame.request_id ?? "");
    this.updateView(sent.threadId, (v) => undecidePlan(v ?? emptyThread(sent.threadId), sent.toolCallId));
    this.notify(`${frame.code}: ${frame.message}`);
    return true;
  }

  /** The server created the thread of our draft: move the draft under its id and show its address. */
  private adoptDraft(threadId: string): void {
    const key = this.draftQueue.shift();
    const draft = key ? this.state.views[key] : undefined;
    if (!key || !draft) return;
    this.set((s) => {
      const { [key]: _moved, ...views } = s.views;
      return { ...s, views: { ...views, [threadId]: { ...draft, threadId } } };
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
    if (this.replaying.has(threadId)) return;
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

  private resume(threadId: string): void {
    const lastSeq = this.state.views[threadId]?.lastSeq ?? 0;
    // Silent when offline: onOpen resumes every thread that matters once the socket is back.
    if (this.socket.send({ command: "resume_chat", data: { thread_id: threadId, last_seq: lastSeq } })) {
      this.replaying.add(threadId);
    }
  }

  private announceTools(): void {
    this.editorUsed = true;
    if (this.manifestSent) return;
    // Silent when offline: onOpen announces again.
    this.manifestSent = this.socket.send({
      command: "client_tools_manifest",
      data: { tools: clientToolsManifest },
    });
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
        const messages = await this.api.messages(threadId);
        const title = this.state.threads.find((t) => t.id === threadId)?.title;
        // Frames may have arrived while the rows loaded; they are newer, so keep them.
        if (!this.state.views[threadId]) {
          this.updateView(threadId, () => threadFromHistory(threadId, messages, title));
        }
      } catch (error) {
        this.onHttpError(error);
        return;
      }
    }
    this.resume(threadId);
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

  private command(frame: ClientFrame): boolean {
    const sent = this.socket.send(frame);
    if (!sent) this.notify("Not connected: reconnecting, try again in a moment.", "warning");
    return sent;
  }

  private updateView(key: string, update: (view: ThreadView | undefined) => ThreadView): void {
    this.set((s) => ({ ...s, views: { ...s.views, [key]: update(s.views[key]) } }));
  }

  private set(change: (s: AppState) => AppState): void {
    this.store.update(change);
  }
}
