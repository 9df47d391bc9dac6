import type { ClientFrame, ImagePart, MessageContent } from "@agentwire-chat/protocol";
import { z } from "zod";
import type { BranchTurn } from "../branch-turns.js";
import type { SendRequest, UiPart } from "./transport-request.js";
import type { AgentwireNode } from "./ui-chunks.js";

/**
 * The longest user message the edge takes, in characters: the protocol's limit on an `answer`. A
 * longer one is refused with an `error` frame before anything is stored (a frame over the server's
 * payload limit closes the socket 1009 before it is read, as on `/ws`).
 */
export const MAX_MESSAGE_CHARS = 100_000;

/**
 * The content of the request's last message, the one a `send` adds: its text parts' text, and its
 * image file parts (`type: "file"`, an `image/*` media type, a data URL or an http(s) URL) as image
 * parts before it, in their order. The thread keeps the history, so earlier messages only say where
 * the message goes (see `turnPosition`), never what the model sees. Or why it cannot start a turn.
 */
export function lastUserContent(messages: SendRequest["messages"]): MessageContent | { problem: string } {
  const last = messages[messages.length - 1];
  if (last?.role !== "user") return { problem: "the last message must be the user's" };
  const images: ImagePart[] = [];
  for (const part of last.parts) {
    if (part.type !== "file") continue;
    const image = imageOf(part);
    if ("problem" in image) return image;
    images.push(image);
  }
  const text = last.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
  if (text.length > MAX_MESSAGE_CHARS) {
    return { problem: `the message is longer than ${MAX_MESSAGE_CHARS} characters` };
  }
  if (images.length === 0) {
    return text.trim() === "" ? { problem: "the last user message has no text" } : text;
  }
  return [...images, ...(text.trim() === "" ? [] : [{ type: "text" as const, text }])];
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,(.*)$/s;

/** A file part as an image content part: base64 `data` from a data URL, `uri` for an http(s) URL. */
function imageOf(part: UiPart): ImagePart | { problem: string } {
  const mediaType = typeof part.mediaType === "string" ? part.mediaType : "";
  if (!/^image\/[\w.+-]+$/.test(mediaType)) {
    return { problem: `a file part of type ${mediaType || "unknown"} is not supported; send images or text` };
  }
  const url = typeof part.url === "string" ? part.url : "";
  const data = DATA_URL.exec(url);
  if (data) {
    if (!data[2]?.split(";").includes("base64") || data[3] === "") {
      return { problem: "an image data URL must be base64" };
    }
    return { type: "image", data: data[3] as string, mime_type: mediaType };
  }
  if (/^https?:\/\/\S+$/.test(url)) return { type: "image", uri: url, mime_type: mediaType };
  return { problem: "an image file part needs a data URL or an http(s) URL" };
}

/** The assistant message a turn streams is named after the turn's user message (turn-projection.ts). */
const ASSISTANT_PREFIX = "aw-";

/**
 * Which turn of the stored branch the client's message at `index` stands for (0: the first turn), or
 * undefined when the request carries nothing before it to tell (an app that sends only the new
 * message). The client's own user message ids are unknown to the server, so the nearest earlier
 * message the server knows anchors it: an assistant message `aw-<user message id>` (what the edge
 * names each answer) or a message under a stored row's id (history an app loaded from
 * `GET /api/threads/:id/messages`), each user message between them one turn more. Without any
 * anchor the client's history is counted from its start.
 */
export function turnPosition(
  messages: SendRequest["messages"],
  index: number,
  turns: readonly BranchTurn[],
): number | undefined {
  const turnOfRow = new Map<string, number>();
  turns.forEach((turn, t) => {
    for (const id of turn.rowIds) turnOfRow.set(id, t);
  });
  const turnOf = (id: string) =>
    turnOfRow.get(id) ??
    (id.startsWith(ASSISTANT_PREFIX) ? turnOfRow.get(id.slice(ASSISTANT_PREFIX.length)) : undefined);
  const own = messages[index];
  if (own?.role === "user") {
    const turn = turnOfRow.get(own.id);
    if (turn !== undefined && turns[turn]?.userMessageId === own.id) return turn;
  }
  let users = 0;
  for (let i = index - 1; i >= 0; i--) {
    const message = messages[i] as SendRequest["messages"][number];
    const turn = turnOf(message.id);
    if (turn !== undefined) return turn + 1 + users;
    if (message.role === "user") users++;
  }
  return index === 0 ? undefined : users;
}

/**
 * The native answers an assistant message carries, newest first: an `ask_user` part the client gave
 * an output (`addToolOutput`) and a part whose approval it responded to (`addToolApprovalResponse`).
 * The message may still hold answers the server already took; those are refused, changing nothing.
 */
export function pendingAnswers(parts: readonly UiPart[], threadId: string): ClientFrame[] {
  const answers: ClientFrame[] = [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as UiPart;
    if (!isToolPart(part) || part.toolCallId === undefined) continue;
    if (part.state === "approval-responded" && part.approval?.approved !== undefined) {
      answers.push({
        command: "tool_approval_response",
        data: { approval_id: part.approval.id, decision: part.approval.approved ? "allow" : "deny" },
      });
    } else if (part.state === "output-available" && toolName(part) === "ask_user") {
      const output = part.output;
      answers.push({
        command: "answer",
        data: {
          thread_id: threadId,
          tool_call_id: part.toolCallId,
          answer: typeof output === "string" ? output : JSON.stringify(output ?? ""),
        },
      });
    }
  }
  return answers;
}

function isToolPart(part: UiPart): boolean {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

function toolName(part: UiPart): string | undefined {
  return part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
}

/** A `data-agentwire-node` part's payload as the client holds it (what `pushNode` sent it). */
const NodeData = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  depth: z.number().int().min(0),
  name: z.string(),
  title: z.string().optional(),
  status: z.enum(["running", "complete", "error"]),
  text: z.string(),
}) satisfies z.ZodType<AgentwireNode>;

/**
 * The tree's nodes as the client's assistant message holds them, to go on from when the turn
 * continues on that message (after an answer): a subtask's text streamed before the question is in
 * no frame of the continued response. A part of another shape is skipped; the edge gives it back
 * only to the same client, as its own display state.
 */
export function nodesOf(parts: readonly UiPart[]): AgentwireNode[] {
  return parts.flatMap((part) => {
    if (part.type !== "data-agentwire-node") return [];
    const node = NodeData.safeParse(part.data);
    return node.success ? [node.data] : [];
  });
}
