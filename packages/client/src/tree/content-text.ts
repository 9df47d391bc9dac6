import type { MessageContent, TextPart } from "@agentwire-chat/protocol";

/**
 * The text of a stored message's content, images left out. Mirrors `contentText` of
 * @agentwire-chat/protocol: importing that value would pull the package's zod schemas (about 130 kB)
 * into the bundle, where only its types are needed.
 */
export function contentText(content: MessageContent | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}
