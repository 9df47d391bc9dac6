import { SavedWorkflow } from "@agentwire-chat/protocol";
import { Redis } from "ioredis";
import { z } from "zod";

/** A saved workflow for its user's editors (the server's `WorkflowSaved`), as it travels between instances. */
const WorkflowSaved = z.object({
  userId: z.string(),
  workflow: SavedWorkflow,
  replacing: z.string().optional(),
});
export type WorkflowSaved = z.infer<typeof WorkflowSaved>;

export interface RedisWorkflowUpdateRelayOptions {
  url: string;
  /** This instance: its own saves come back on the channel and are skipped (delivered locally already). */
  instanceId: string;
  prefix?: string;
  onError?: (error: unknown) => void;
}

const Published = z.object({ origin: z.string(), saved: WorkflowSaved });

/**
 * Workflow saves across instances on one Redis pub/sub channel, `<prefix>workflow-updates`: a
 * build_workflow or PUT on instance A redraws the user's editors on B. Fire and forget: a lost
 * message leaves an editor on the older graph until the next save or its next read of the workflow.
 * The server's open workflows take it as their `WorkflowUpdateRelay` (`relayVia`).
 */
export class RedisWorkflowUpdateRelay {
  private readonly channel: string;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisWorkflowUpdateRelayOptions,
  ) {
    this.channel = `${options.prefix ?? "aw:"}workflow-updates`;
  }

  /** Opens its two connections (a subscribed connection can only listen). */
  static async connect(options: RedisWorkflowUpdateRelayOptions): Promise<RedisWorkflowUpdateRelay> {
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
    return new RedisWorkflowUpdateRelay(publisher, subscriber, options);
  }

  /** Sends this instance's save to the others (fire and forget). */
  publish(saved: WorkflowSaved): void {
    const message = JSON.stringify({ origin: this.options.instanceId, saved });
    this.publisher.publish(this.channel, message).catch((error: unknown) => this.options.onError?.(error));
  }

  /** Starts receiving the other instances' saves. */
  async listen(deliver: (saved: WorkflowSaved) => void): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const published = parse(text);
      if (!published || published.origin === this.options.instanceId) return;
      const { replacing, ...rest } = published.saved;
      deliver({ ...rest, ...(replacing !== undefined && { replacing }) });
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
