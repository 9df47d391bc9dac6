import { z } from "zod";
import { MessageContent } from "./content.js";
import { printable } from "./printable.js";

const id = printable(200);

/** The name of a context (`chat_context.kind`, and an operator scope's key in its config file). */
export const CONTEXT_KIND = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Which context the message is sent in: `thread` (the default), `editor` (a workflow being edited, named
 * by `workflow_id`), or an operator-defined scope by name; the server answers bad_request for a kind it
 * does not define, and for a `workflow_id` on a scope not based on the editor.
 */
export const ChatContext = z
  .strictObject({
    kind: z.string().regex(CONTEXT_KIND, "a context kind is 1-64 lowercase letters, digits, _ or -"),
    workflow_id: id.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.kind === "editor" && c.workflow_id === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["workflow_id"],
        message: "the editor context needs a workflow_id",
      });
    if (c.kind === "thread" && c.workflow_id !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["workflow_id"],
        message: "the thread context takes no workflow_id",
      });
  });
export type ChatContext = z.infer<typeof ChatContext>;

/** `media_generation` carries free-form options beside `mode`; they are validated by the media route. */
export const MediaGeneration = z.looseObject({ mode: z.enum(["chat", "image", "speech"]) });
export type MediaGeneration = z.infer<typeof MediaGeneration>;

/**
 * What a `chat_message` sent while a turn runs on its thread does: `reject` it (`busy`), `queue` it for
 * the next turn, `steer` it into the running turn before its next model call, or `interrupt` the turn
 * (stopped as `stop` does) and start at once.
 */
export const OnBusy = z.enum(["reject", "queue", "steer", "interrupt"]);
export type OnBusy = z.infer<typeof OnBusy>;

export const ChatMessageData = z.strictObject({
  thread_id: id.optional(),
  content: MessageContent,
  provider: printable(100).optional(),
  model: printable(200).optional(),
  chat_context: ChatContext.optional(),
  workflow_target: z.literal("workflow").optional(),
  workflow_id: id.optional(),
  media_generation: MediaGeneration.optional(),
  memory_enabled: z.boolean().optional(),
  /**
   * The message this one follows: the final assistant row of a turn of the thread, on any branch, or
   * null for a new first message (an edit of the first). Absent: the thread's current leaf.
   */
  parent_message_id: id.nullable().optional(),
  /** What happens when a turn already runs on the thread (absent: the server's `BUSY_POLICY`). */
  on_busy: OnBusy.optional(),
  /** Deprecated: accepted and ignored. */
  agent_mode: z.unknown().optional(),
  /** Deprecated: accepted and ignored; the server decides the toolbelt. */
  tools: z.unknown().optional(),
  /** Deprecated: accepted and ignored. */
  collections: z.unknown().optional(),
});
export type ChatMessageData = z.infer<typeof ChatMessageData>;

export const StopData = z.strictObject({ thread_id: id });
export const ResumeChatData = z.strictObject({ thread_id: id, last_seq: z.number().int().min(0) });
export const AnswerData = z.strictObject({
  thread_id: id,
  tool_call_id: id,
  answer: z.string().max(100_000),
});
export const ToolApprovalResponseData = z.strictObject({
  approval_id: id,
  decision: z.enum(["allow", "allow_for_thread", "deny"]),
});
export const ClientToolSpec = z.strictObject({
  name: z
    .string()
    .regex(
      /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/,
      "a tool name is 1-64 letters, digits, _ or -, starting with a letter",
    ),
  description: z.string().max(4000),
  input_schema: z.record(z.string(), z.unknown()),
});
export type ClientToolSpec = z.infer<typeof ClientToolSpec>;
export const ClientToolsManifestData = z.strictObject({ tools: z.array(ClientToolSpec).max(64) });
export const ToolResultData = z.strictObject({
  tool_call_id: id,
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().max(100_000).optional(),
});
/** A client's answer to one of its UI tool calls (`tool_result`). */
export type ToolResultData = z.infer<typeof ToolResultData>;
export const PingData = z.strictObject({});
/** The user's answer to a draft plan: run it, or give the feedback to the model, in a following turn. */
export const PlanDecisionData = z.strictObject({
  thread_id: id,
  plan_id: id,
  decision: z.enum(["approve", "revise"]),
  feedback: z.string().max(100_000).optional(),
});
/** Continues the thread's last turn, which a budget or the iteration limit ended, with a fresh budget. */
export const ContinueTurnData = z.strictObject({ thread_id: id });
/** Answers a user message of the thread (on any branch) again, as a new branch beside the old answer. */
export const RegenerateData = z.strictObject({ thread_id: id, message_id: id });
export type RegenerateData = z.infer<typeof RegenerateData>;
/** Removes a queued message that has not started yet. */
export const CancelQueuedData = z.strictObject({ thread_id: id, message_id: id });
/** Asks for `thread_state` frames about all the user's threads on this socket. */
export const SubscribeThreadsData = z.strictObject({});

/** The data schema of every client command, by command name. */
export const clientCommandData = {
  chat_message: ChatMessageData,
  stop: StopData,
  resume_chat: ResumeChatData,
  answer: AnswerData,
  tool_approval_response: ToolApprovalResponseData,
  client_tools_manifest: ClientToolsManifestData,
  tool_result: ToolResultData,
  ping: PingData,
  plan_decision: PlanDecisionData,
  subscribe_threads: SubscribeThreadsData,
  continue_turn: ContinueTurnData,
  regenerate: RegenerateData,
  cancel_queued: CancelQueuedData,
} as const;

export type ClientCommandName = keyof typeof clientCommandData;
export const clientCommandNames = Object.keys(clientCommandData) as ClientCommandName[];

const requestId = z.string().max(200).optional();
const envelope = <C extends ClientCommandName>(command: C) =>
  z.strictObject({ command: z.literal(command), data: clientCommandData[command], request_id: requestId });

export const ChatMessageFrame = envelope("chat_message");
export const StopFrame = envelope("stop");
export const ResumeChatFrame = envelope("resume_chat");
export const AnswerFrame = envelope("answer");
export const ToolApprovalResponseFrame = envelope("tool_approval_response");
export const ClientToolsManifestFrame = envelope("client_tools_manifest");
export const ToolResultFrame = envelope("tool_result");
export const PingFrame = envelope("ping");
export const PlanDecisionFrame = envelope("plan_decision");
export const SubscribeThreadsFrame = envelope("subscribe_threads");
export const ContinueTurnFrame = envelope("continue_turn");
export const RegenerateFrame = envelope("regenerate");
export const CancelQueuedFrame = envelope("cancel_queued");

/** Every frame a client may send. */
export const ClientFrame = z.discriminatedUnion("command", [
  ChatMessageFrame,
  StopFrame,
  ResumeChatFrame,
  AnswerFrame,
  ToolApprovalResponseFrame,
  ClientToolsManifestFrame,
  ToolResultFrame,
  PingFrame,
  PlanDecisionFrame,
  SubscribeThreadsFrame,
  ContinueTurnFrame,
  RegenerateFrame,
  CancelQueuedFrame,
]);
export type ClientFrame = z.infer<typeof ClientFrame>;

/** The parsed frame of one command, e.g. `ClientFrameOf<"stop">`. */
export type ClientFrameOf<C extends ClientCommandName> = Extract<ClientFrame, { command: C }>;
