import { createAjv, type Tool, type ToolContext, type ToolOutcome } from "@agentwire-chat/agents";
import type { ClientToolSpec, ServerFrame, ToolResultData } from "@agentwire-chat/protocol";
import type { CodeOptions, ValidateFunction } from "ajv";
import { serverToolNames } from "./server-tool-names.js";
import type { RoutedToolCall, ToolCallRouting } from "./tool-call-routing.js";
import type { ToolScope } from "./tool-scope.js";

/** Options of UIToolProxy. */
export type UIToolProxyOptions = {
  /** How long a `tool_call` waits for its `tool_result` before the call is an error result (default 60 s). */
  timeoutMs?: number;
  /** Names a client tool may not take, beside the built-in tool names and any name containing `__` (MCP). */
  reservedNames?: Iterable<string>;
  /** Cap on one tool's input_schema as JSON (default 64 KiB). */
  maxSchemaBytes?: number;
  /**
   * How long a call whose socket closed may still be answered by another socket of the same user (the
   * client reconnected: to this instance, or to another one once `routeVia` is set), within the call's
   * timeout. 0 (default): the call ends with an error result as soon as its socket closes.
   */
  reconnectGraceMs?: number;
};

/** The socket a manifest came from: where its tool calls are sent, and when it is gone. */
export type ClientEndpoint = {
  connectionId: string;
  userId: string;
  /** Sends on that socket; false when the frame was not sent (closed or too slow). */
  send(frame: ServerFrame): boolean;
  /** Aborted when the socket closes. */
  signal: AbortSignal;
};

/** A client's answer to one `tool_call` (the `tool_result` frame's data). */
export type ClientToolResult = ToolResultData;

type Announced = {
  spec: ClientToolSpec;
  validate: ValidateFunction;
  errorsText: (v: ValidateFunction) => string;
};
type Pending = {
  threadId: string;
  finish: (outcome: ToolOutcome) => void;
  /** Its socket closed: it waits `reconnectGraceMs` for an answer from another socket of the user. */
  orphan: () => void;
};
type ClientState = {
  endpoint: ClientEndpoint;
  tools: Map<string, Announced>;
  pending: Map<string, Pending>;
};

export type ManifestCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

const DEFAULT_TIMEOUT_MS = 60_000;
const DISCONNECTED = "the editor disconnected before it answered; the call did not complete";
const DEFAULT_MAX_SCHEMA_BYTES = 64 * 1024;

// Client-supplied regular expressions would run on the server against model-written strings (ReDoS):
// ajv asks this engine for every `pattern`/`patternProperties` while compiling, so those schemas are refused.
const noRegExp: NonNullable<CodeOptions["regExp"]> = Object.assign(
  (pattern: string): never => {
    throw new Error(
      `regular expressions are not accepted in client tool schemas (pattern ${JSON.stringify(pattern).slice(0, 80)})`,
    );
  },
  { code: "agentwireNoRegExp" },
);

/**
 * Client UI tools of the editor context. Keeps, per connection, the tools its client announced with
 * `client_tools_manifest`, builds proxies for a turn (`clientTools(scope)`), sends `tool_call` to the
 * socket of the turn (`scope.connectionId`) and waits for the matching `tool_result` from that socket only.
 * A call ends with an error result when the client does not answer in time, when its socket is gone or
 * closes while it waits (after `reconnectGraceMs`, when set, without an answer from the user's new
 * socket), or when the turn is aborted.
 */
export class UIToolProxy {
  readonly #timeoutMs: number;
  readonly #graceMs: number;
  readonly #maxSchemaBytes: number;
  readonly #reserved: Set<string>;
  readonly #clients = new Map<string, ClientState>();
  /** Calls whose socket closed, waiting out the grace: by user, then by tool call id. */
  readonly #orphans = new Map<string, Map<string, Pending>>();
  #routing: ToolCallRouting | undefined;

  constructor(options: UIToolProxyOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#graceMs = options.reconnectGraceMs ?? 0;
    this.#maxSchemaBytes = options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES;
    this.#reserved = new Set([...serverToolNames, ...(options.reservedNames ?? [])]);
  }

  /**
   * Instances sharing Redis: calls sent from here are recorded with `routing`, so a user who reconnects
   * to another instance can answer them there; an answer that waits nowhere here is forwarded.
   */
  routeVia(routing: ToolCallRouting): void {
    this.#routing = routing;
  }

  /**
   * Replaces the connection's manifest, all or nothing: every schema must compile, no name may repeat
   * or clash with a server tool. Returns the announced names, or why the manifest was refused (the
   * previous manifest then stays).
   */
  announce(endpoint: ClientEndpoint, specs: readonly ClientToolSpec[]): ManifestCheck<string[]> {
    if (endpoint.signal.aborted) return { ok: false, reason: "the connection is closed" };
    // A fresh ajv per manifest: schemas of a replaced manifest are not kept alive, and `$id`s of two
    // manifests cannot collide.
    // No logger here: ajv's notes are dropped (createAjv), never printed to stderr.
    const ajv = createAjv({
      validateFormats: false,
      code: { regExp: noRegExp },
    });
    const errorsText = (v: ValidateFunction) => ajv.errorsText(v.errors, { dataVar: "args" });
    const tools = new Map<string, Announced>();
    for (const spec of specs) {
      const where = `tool ${spec.name}`;
      if (tools.has(spec.name)) return { ok: false, reason: `${where}: the name is announced twice` };
      if (this.#reserved.has(spec.name) || spec.name.includes("__")) {
        return { ok: false, reason: `${where}: the name is taken by a server tool` };
      }
      const schema = spec.input_schema;
      if (Buffer.byteLength(JSON.stringify(schema)) > this.#maxSchemaBytes) {
        return { ok: false, reason: `${where}: input_schema is larger than ${this.#maxSchemaBytes} bytes` };
      }
      if (schema.type !== "object") {
        return { ok: false, reason: `${where}: input_schema must be a JSON Schema with type "object"` };
      }
      const { $id: _id, $schema: _dialect, ...rest } = schema;
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(rest);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, reason: `${where}: input_schema does not compile: ${message.slice(0, 300)}` };
      }
      if ((validate as { $async?: unknown }).$async) {
        return { ok: false, reason: `${where}: asynchronous schemas ($async) are not accepted` };
      }
      tools.set(spec.name, { spec: { ...spec, input_schema: rest }, validate, errorsText });
    }
    const state = this.#clients.get(endpoint.connectionId);
    if (state) state.tools = tools;
    else this.#track(endpoint, tools);
    return { ok: true, value: [...tools.keys()] };
  }

  /** The names the connection announced (empty when it announced none or is gone). */
  announced(connectionId: string): string[] {
    return [...(this.#clients.get(connectionId)?.tools.keys() ?? [])];
  }

  /** The connections that announced tools and are still open. */
  connectionIds(): string[] {
    return [...this.#clients.keys()];
  }

  /** How many calls wait for a tool_result, on one connection or on all (calls of closed sockets in grace too). */
  pendingCount(connectionId?: string): number {
    if (connectionId !== undefined) return this.#clients.get(connectionId)?.pending.size ?? 0;
    let n = 0;
    for (const c of this.#clients.values()) n += c.pending.size;
    for (const calls of this.#orphans.values()) n += calls.size;
    return n;
  }

  /**
   * `ChatServices.clientTools`: proxies of the tools the turn's connection announced (none when that
   * socket announced none, is gone, or belongs to another user).
   */
  clientTools(scope: ToolScope): Tool[] {
    const state = this.#clients.get(scope.connectionId);
    if (!state || state.endpoint.userId !== scope.userId) return [];
    return [...state.tools.values()].map((a) => this.#proxy(scope, a));
  }

  /**
   * Delivers a `tool_result` from `connectionId`: true when it answered a call that waits on that very
   * connection (the call then ends, once); false for an unknown id, an id of another connection, or a
   * call that already ended (timed out, cancelled, answered).
   */
  resolve(connectionId: string, data: ClientToolResult): boolean {
    const pending = this.#clients.get(connectionId)?.pending.get(data.tool_call_id);
    if (!pending) return false;
    pending.finish(outcomeOf(data));
    return true;
  }

  /**
   * Delivers a `tool_result` of `userId` to a call whose socket closed and that is still in its
   * reconnect grace (of `threadId`, when given): true when it answered one. While a call's socket is
   * open, only that socket may answer it (`resolve`).
   */
  resolveOrphaned(userId: string, data: ClientToolResult, threadId?: string): boolean {
    const pending = this.#orphans.get(userId)?.get(data.tool_call_id);
    if (!pending || (threadId !== undefined && pending.threadId !== threadId)) return false;
    pending.finish(outcomeOf(data));
    return true;
  }

  /**
   * The `tool_result` command: the call sent to this socket, else a call of the user whose socket
   * closed (here, then, with `routeVia`, on the instance running its turn). True when one was answered.
   */
  async answer(connectionId: string, userId: string, data: ClientToolResult): Promise<boolean> {
    if (this.resolve(connectionId, data) || this.resolveOrphaned(userId, data)) return true;
    return this.#routing ? this.#routing.forward(userId, data) : false;
  }

  #track(endpoint: ClientEndpoint, tools: Map<string, Announced>): void {
    const state: ClientState = { endpoint, tools, pending: new Map() };
    this.#clients.set(endpoint.connectionId, state);
    endpoint.signal.addEventListener(
      "abort",
      () => {
        if (this.#clients.get(endpoint.connectionId) === state) this.#clients.delete(endpoint.connectionId);
        for (const p of [...state.pending.values()]) {
          if (this.#graceMs > 0) p.orphan();
          else p.finish(errorResult(DISCONNECTED));
        }
      },
      { once: true },
    );
  }

  #proxy(scope: ToolScope, announced: Announced): Tool {
    const { spec, validate, errorsText } = announced;
    return {
      name: spec.name,
      description: spec.description,
      inputSchema: spec.input_schema,
      permissionClass: "editor_mutate",
      parallelSafe: false,
      // One editor: its mutations run one at a time across the whole turn tree (parallel subtasks too).
      requiresExclusiveLock: "editor_ui",
      validate: (args) => {
        const value = args ?? {};
        if (validate(value)) return { ok: true, value };
        return { ok: false, message: `invalid arguments for ${spec.name}: ${errorsText(validate)}` };
      },
      execute: (args, ctx) => this.#call(scope, spec.name, args, ctx),
    };
  }

  async #call(scope: ToolScope, name: string, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const state = this.#clients.get(scope.connectionId);
    const notConnected = errorResult(`the editor that offers ${name} is not connected; the call did not run`);
    if (!state || state.endpoint.signal.aborted || state.endpoint.userId !== scope.userId)
      return notConnected;
    if (!state.tools.has(name)) {
      return errorResult(`the editor no longer offers ${name}; the call did not run`);
    }
    if (ctx.signal.aborted) return errorResult("the turn was cancelled");
    const id = ctx.toolCallId;
    if (state.pending.has(id)) return errorResult(`a call with id ${id} already waits on the editor`);
    const call: RoutedToolCall = { userId: scope.userId, toolCallId: id, threadId: scope.threadId };
    // Only a call that outlives its socket can be answered elsewhere; recorded before the client can answer.
    const routing = this.#graceMs > 0 ? this.#routing : undefined;
    if (routing) {
      await routing.register(call, this.#timeoutMs + this.#graceMs);
      if (state.endpoint.signal.aborted || ctx.signal.aborted) {
        void routing.unregister(call);
        return ctx.signal.aborted ? errorResult("the turn was cancelled") : notConnected;
      }
    }
    return new Promise<ToolOutcome>((resolve) => {
      let done = false;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const timer = setTimeout(
        () => finish(errorResult(`the editor did not answer ${name} within ${formatMs(this.#timeoutMs)}`)),
        this.#timeoutMs,
      );
      const onAbort = () => finish(errorResult("the turn was cancelled while the editor was working"));
      const finish = (outcome: ToolOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        ctx.signal.removeEventListener("abort", onAbort);
        state.pending.delete(id);
        const orphans = this.#orphans.get(call.userId);
        if (orphans?.get(id) === pending) {
          orphans.delete(id);
          if (orphans.size === 0) this.#orphans.delete(call.userId);
        }
        if (routing) void routing.unregister(call);
        resolve(outcome);
      };
      const orphan = () => {
        if (done) return;
        state.pending.delete(id);
        let orphans = this.#orphans.get(call.userId);
        if (!orphans) {
          orphans = new Map();
          this.#orphans.set(call.userId, orphans);
        }
        orphans.set(id, pending);
        graceTimer = setTimeout(() => finish(errorResult(DISCONNECTED)), this.#graceMs);
      };
      const pending: Pending = { threadId: scope.threadId, finish, orphan };
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      state.pending.set(id, pending);
      // Sent on the socket itself, without a turn seq: see docs/tools.md ("Client UI tools").
      const sent = state.endpoint.send({
        type: "tool_call",
        tool_call_id: id,
        name,
        args,
        thread_id: scope.threadId,
      });
      if (!sent) finish(errorResult(`the editor's connection is gone or too slow; ${name} did not run`));
    });
  }
}

function outcomeOf(data: ClientToolResult): ToolOutcome {
  if (data.ok) return { type: "result", output: data.result ?? null };
  return errorResult(data.error?.trim() ? data.error : "the editor reported a failure without a message");
}

function errorResult(message: string): ToolOutcome {
  return { type: "result", output: message, isError: true };
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
