import { z } from "zod";

// The client frames of the AI SDK's `WebSocketChatTransport`, checked with the rules of
// `safeValidateWebSocketChatTransportRequest` (ai 7.x, src/ui/websocket-chat-transport.ts): a
// string `requestId`; `send` and `resume` with a string `id`, string-valued `headers` and an object
// `body`; `send` with its `trigger` and optional `messageId`, `resume` with an optional whole
// `lastSequence`. `safeValidateUIMessages` is narrowed to what this edge reads of a message (its
// id, its role and its parts' types, text parts' text, file parts' media type and URL, tool parts'
// state and the tree's data parts); other fields pass unread.
// Fields this edge does not use (`metadata`, `headers`) are accepted and ignored, as the transport
// sends them on every frame.

const requestId = z.string().min(1).max(200);
/** A chat id is a thread id: the characters a URL, a log line and both SQL dialects take as they are. */
const chatId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "id: 1 to 128 letters, digits, '_' or '-'");
const headers = z.record(z.string(), z.string());
const body = z.looseObject({});

const UiPart = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  text: z.string().optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
  state: z.string().optional(),
  output: z.unknown().optional(),
  approval: z.looseObject({ id: z.string(), approved: z.boolean().optional() }).optional(),
  /** A file part's media type and URL (a data URL or an http(s) URL); image files become image content. */
  mediaType: z.string().optional(),
  url: z.string().optional(),
  /** A data part's payload; only `data-agentwire-node` parts are read (client-messages.ts checks them). */
  data: z.unknown().optional(),
});
export type UiPart = z.infer<typeof UiPart>;

const UiMessage = z.looseObject({
  id: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(UiPart),
});

export const SendRequest = z.looseObject({
  type: z.literal("send"),
  requestId,
  id: chatId,
  trigger: z.enum(["submit-message", "regenerate-message"]),
  messageId: z.string().optional(),
  messages: z.array(UiMessage).min(1),
  headers,
  body,
});
export type SendRequest = z.infer<typeof SendRequest>;

export const ResumeRequest = z.looseObject({
  type: z.literal("resume"),
  requestId,
  id: chatId,
  lastSequence: z.number().int().min(0).optional(),
  headers,
  body,
});

export const AbortRequest = z.looseObject({ type: z.literal("abort"), requestId });

/** A client frame of the transport. */
export const TransportRequest = z.discriminatedUnion("type", [SendRequest, ResumeRequest, AbortRequest]);
export type TransportRequest = z.infer<typeof TransportRequest>;

/** The frame's `requestId` when it has a usable one, to answer an invalid frame on its stream. */
export function requestIdOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as { requestId?: unknown }).requestId;
  return requestId.safeParse(id).success ? (id as string) : undefined;
}
