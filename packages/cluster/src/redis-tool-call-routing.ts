import { randomUUID } from "node:crypto";
import { AgentwireError, type ToolResultData } from "@agentwire-chat/protocol";
import type { Redis } from "ioredis";
import type { ClusterCommand, ToolResultCommand, ToolResultReply } from "./cluster-command.js";
import type { TurnOwner } from "./turn-leases.js";

/** A client tool call waiting for its answer: whose it is and which thread's turn runs it. */
export type RoutedToolCall = { userId: string; toolCallId: string; threadId: string };

/** A user's answer to a client tool call (`tool_result`'s data; the server's `ClientToolResult`). */
export type ClientToolResult = ToolResultData;

/** The server's client tool proxy, as far as answers routed between instances go. */
export interface RoutedToolProxy {
  /** Hands the proxy the routing for answers that wait on no socket of this instance. */
  routeVia: (routing: RedisToolCallRouting) => void;
  /** Resolves a call of the user whose socket closed (in its grace); true when one was answered. */
  resolveOrphaned(userId: string, data: ClientToolResult, threadId?: string): boolean;
}

export interface RedisToolCallRoutingOptions {
  instanceId: string;
  prefix?: string;
  /** The instance running a thread's turn when it is another one (the turn lease). */
  ownerOf: (threadId: string) => Promise<TurnOwner | undefined>;
  /** Publishes a command on an instance's channel; resolves to how many subscribers got it. */
  send: (instanceId: string, command: ClusterCommand) => Promise<number>;
  /** How long an answer waits for the owner's reply before it counts as not delivered (default 5 s). */
  replyTimeoutMs?: number;
  onError?: (error: unknown) => void;
}

// Forget a call only if the entry is still this call's (another turn of the user may reuse the id).
const DROP = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/**
 * Client tool answers across instances. A call is recorded as `<prefix>toolcall:<user>:<id>` → its
 * thread; an answer given elsewhere looks it up, finds the instance whose lease holds the thread, and
 * sends it there as `tool_result`; that instance resolves the call (if its socket closed and it is in
 * its grace) and replies `tool_result_reply`, so the sender is answered as it would be locally.
 * The server's client tool proxy takes it as its `ToolCallRouting`.
 */
export class RedisToolCallRouting {
  private readonly prefix: string;
  private readonly replyTimeoutMs: number;
  private readonly waiting = new Map<string, (resolved: boolean) => void>();

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisToolCallRoutingOptions,
  ) {
    this.prefix = options.prefix ?? "aw:";
    this.replyTimeoutMs = options.replyTimeoutMs ?? 5_000;
  }

  /** The Redis key of a user's call. */
  key(userId: string, toolCallId: string): string {
    return `${this.prefix}toolcall:${userId}:${toolCallId}`;
  }

  /** Records where a call waits, for up to `ttlMs`. Never rejects (a failure only loses the routing). */
  async register(call: RoutedToolCall, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(this.key(call.userId, call.toolCallId), entry(call), "PX", ttlMs);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Forgets a call that ended. Never rejects. */
  async unregister(call: RoutedToolCall): Promise<void> {
    try {
      await this.redis.eval(DROP, 1, this.key(call.userId, call.toolCallId), entry(call));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Delivers a user's answer to the instance where its call waits; true when it answered a call there. */
  async forward(userId: string, data: ClientToolResult): Promise<boolean> {
    let owner: TurnOwner | undefined;
    let threadId: string | undefined;
    try {
      threadId = threadOf(await this.redis.get(this.key(userId, data.tool_call_id)), userId);
      owner = threadId === undefined ? undefined : await this.options.ownerOf(threadId);
    } catch (error) {
      this.options.onError?.(error);
      throw new AgentwireError(
        "unavailable",
        "tool_result: the turn's instance cannot be reached now; retry",
      );
    }
    if (!owner || threadId === undefined) return false;
    const requestId = randomUUID();
    const replied = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), this.replyTimeoutMs);
      const settle = (resolved: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        resolve(resolved);
      };
      this.waiting.set(requestId, settle);
    });
    const command: ToolResultCommand = {
      type: "tool_result",
      threadId,
      userId,
      data,
      replyTo: this.options.instanceId,
      requestId,
    };
    const received = await this.options.send(owner.instanceId, command).catch((error: unknown) => {
      this.options.onError?.(error);
      return 0;
    });
    // Nobody listens on the owner's channel: it died, and its turn ends with the lease.
    if (received === 0) this.waiting.get(requestId)?.(false);
    return replied;
  }

  /** On the instance running the turn: resolves a routed answer with `proxy` and replies to the sender. */
  async handle(command: ToolResultCommand, proxy: RoutedToolProxy | undefined): Promise<void> {
    const resolved = proxy?.resolveOrphaned(command.userId, command.data, command.threadId) ?? false;
    const reply: ToolResultReply = { type: "tool_result_reply", requestId: command.requestId, resolved };
    await this.options.send(command.replyTo, reply);
  }

  /** On the instance that forwarded an answer: the owner's reply. */
  settle(reply: ToolResultReply): void {
    this.waiting.get(reply.requestId)?.(reply.resolved);
  }

  /** Answers every forwarded answer still waiting as not delivered (shutdown). */
  close(): void {
    for (const settle of [...this.waiting.values()]) settle(false);
  }
}

function entry(call: RoutedToolCall): string {
  return JSON.stringify({ user: call.userId, thread: call.threadId });
}

/** The thread of a stored entry, when it is the user's. */
function threadOf(stored: string | null, userId: string): string | undefined {
  if (!stored) return undefined;
  try {
    const value = JSON.parse(stored) as { user?: unknown; thread?: unknown };
    return value.user === userId && typeof value.thread === "string" ? value.thread : undefined;
  } catch {
    return undefined;
  }
}
