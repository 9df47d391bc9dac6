import { ToolResultData } from "@agentwire-chat/protocol";
import { z } from "zod";

/** `stop`: the receiving instance stops its turn on the thread, if it still runs that turn. */
export const StopCommand = z.object({ type: z.literal("stop"), threadId: z.string(), turnId: z.string() });

/** `tool_result`: a user's answer to a client tool call waiting on the receiving instance. */
export const ToolResultCommand = z.object({
  type: z.literal("tool_result"),
  threadId: z.string(),
  userId: z.string(),
  data: ToolResultData,
  /** The instance that received the answer and waits for `tool_result_reply`. */
  replyTo: z.string(),
  requestId: z.string(),
});
export type ToolResultCommand = z.infer<typeof ToolResultCommand>;

/** `tool_result_reply`: whether a routed answer resolved a waiting call. */
export const ToolResultReply = z.object({
  type: z.literal("tool_result_reply"),
  requestId: z.string(),
  resolved: z.boolean(),
});
export type ToolResultReply = z.infer<typeof ToolResultReply>;

/** What one instance asks of another over its pub/sub channel, `<prefix>cmd:<instanceId>`. */
export const ClusterCommand = z.discriminatedUnion("type", [StopCommand, ToolResultCommand, ToolResultReply]);
export type ClusterCommand = z.infer<typeof ClusterCommand>;

/** The command a channel message holds, or undefined for anything else (ignored). */
export function parseClusterCommand(text: string): ClusterCommand | undefined {
  try {
    const parsed = ClusterCommand.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
