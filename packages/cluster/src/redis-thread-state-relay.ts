import { ThreadTurnState } from "@agentwire-chat/protocol";
import { Redis } from "ioredis";
import { z } from "zod";

/** A thread's new live state (the server's `ThreadStateChange`), as it travels between instances. */
export type ThreadStateChange = {
  userId: string;
  threadId: string;
  state: ThreadTurnState;
  /** The ask_user question a waiting turn asks. */
  question?: string;
  /** A running turn's latest progress line. */
  progress?: string;
};

export interface RedisThreadStateRelayOptions {
  url: string;
  /** This instance: its own changes come back on the channel and are skipped (delivered locally already). */
  instanceId: string;
  prefix?: string;
  onError?: (error: unknown) => void;
}

/** One published change, with the instance that published it. */
const Published = z.object({
  origin: z.string(),
  change: z.object({
    userId: z.string(),
    threadId: z.string(),
    state: ThreadTurnState,
    question: z.string().optional(),
    progress: z.string().optional(),
  }),
});

/**
 * Thread live-state changes across instances on one Redis pub/sub channel, `<prefix>thread-states`:
 * a turn running on instance A shows on the user's subscribed sockets on B. Fire and forget: a lost
 * message only leaves a stale mark until the next change or the client's next GET /api/threads.
 * The server's thread states take it as their `ThreadStateRelay` (`relayVia`).
 */
export class RedisThreadStateRelay {
  private readonly channel: string;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisThreadStateRelayOptions,
  ) {
    this.channel = `${options.prefix ?? "aw:"}thread-states`;
  }

  /** Opens its two connections (a subscribed connection can only listen). */
  static async connect(options: RedisThreadStateRelayOptions): Promise<RedisThreadStateRelay> {
    const connect = () => new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    const publisher = connect();
    const subscriber = connect();
    try {
      await Promise.all([publisher.connect(), subscriber.connect()]);
    } catch (error) {
      publisher.disconnect();
      subscriber.disconnect();
      throw error;
    }
    return new RedisThreadStateRelay(publisher, subscriber, options);
  }

  /** Sends this instance's change to the others (fire and forget). */
  publish(change: ThreadStateChange): void {
    const message = JSON.stringify({ origin: this.options.instanceId, change });
    this.publisher.publish(this.channel, message).catch((error: unknown) => this.options.onError?.(error));
  }

  /** Starts receiving the other instances' changes. */
  async listen(deliver: (change: ThreadStateChange) => void): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const published = parse(text);
      if (!published || published.origin === this.options.instanceId) return;
      const { question, progress, ...rest } = published.change;
      deliver({
        ...rest,
        ...(question !== undefined && { question }),
        ...(progress !== undefined && { progress }),
      });
    });
    await this.subscriber.subscribe(this.channel);
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    await Promise.all([this.publisher, this.subscriber].map((c) => c.quit().catch(() => c.disconnect())));
  }
}

function parse(text: string): z.infer<typeof Published> | undefined {
  try {
    const parsed = Published.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
