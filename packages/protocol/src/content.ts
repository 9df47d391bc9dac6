import { z } from "zod";

export const TextPart = z.strictObject({ type: z.literal("text"), text: z.string() });
export type TextPart = z.infer<typeof TextPart>;

/** An image is given either by `uri` (http(s) or data URI) or by base64 `data`, never both. */
export const ImagePart = z
  .strictObject({
    type: z.literal("image"),
    uri: z.string().min(1).optional(),
    data: z.string().min(1).optional(),
    mime_type: z.string().min(1),
  })
  .refine((p) => (p.uri === undefined) !== (p.data === undefined), {
    message: "exactly one of uri or data is required",
  });
export type ImagePart = z.infer<typeof ImagePart>;

export const ContentPart = z.union([TextPart, ImagePart]);
export type ContentPart = z.infer<typeof ContentPart>;

/** User content: plain text or a list of text and image parts. */
export const MessageContent = z.union([z.string(), z.array(ContentPart).min(1)]);
export type MessageContent = z.infer<typeof MessageContent>;

/** The plain text of a content value (images dropped). */
export function contentText(content: MessageContent | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

/**
 * True when the content says nothing: empty or whitespace-only text and no image. A `chat_message`
 * with blank content is refused (`bad_request`); stored assistant rows may be blank (tool calls only).
 */
export function isBlankContent(content: MessageContent): boolean {
  if (typeof content === "string") return content.trim() === "";
  return content.every((p) => p.type === "text" && p.text.trim() === "");
}
