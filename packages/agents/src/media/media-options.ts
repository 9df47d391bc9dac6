import { z } from "zod";
import type { MediaError } from "./media-generator.js";

export const IMAGE_SIZES = [
  "auto",
  "256x256",
  "512x512",
  "1024x1024",
  "1536x1024",
  "1024x1536",
  "1792x1024",
  "1024x1792",
] as const;
export const SPEECH_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "nova",
  "onyx",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
] as const;
export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
export const MAX_IMAGE_PROMPT_CHARS = 4000;
export const MAX_SPEECH_INPUT_CHARS = 4096;

const target = {
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
};

/** `media_generation` in image mode; strict, so a misspelt option is refused, not ignored. */
export const ImageOptions = z.strictObject({
  mode: z.literal("image"),
  ...target,
  prompt: z.string().trim().min(1).max(MAX_IMAGE_PROMPT_CHARS),
  size: z.enum(IMAGE_SIZES).default("1024x1024"),
  n: z.number().int().min(1).max(4).default(1),
  quality: z.enum(["auto", "standard", "hd", "low", "medium", "high"]).optional(),
  output_format: z.enum(["png", "jpeg", "webp"]).optional(),
  background: z.enum(["auto", "transparent", "opaque"]).optional(),
});
export type ImageOptions = z.infer<typeof ImageOptions>;

/** `media_generation` in speech (text-to-speech) mode. */
export const SpeechOptions = z.strictObject({
  mode: z.literal("speech"),
  ...target,
  input: z.string().trim().min(1).max(MAX_SPEECH_INPUT_CHARS),
  voice: z.enum(SPEECH_VOICES).default("alloy"),
  format: z.enum(SPEECH_FORMATS).default("mp3"),
  speed: z.number().min(0.25).max(4).optional(),
  instructions: z.string().max(4096).optional(),
});
export type SpeechOptions = z.infer<typeof SpeechOptions>;

export const MediaOptions = z.discriminatedUnion("mode", [ImageOptions, SpeechOptions]);
export type MediaOptions = z.infer<typeof MediaOptions>;

/** What the chat message itself supplies when `media_generation` leaves it out. */
export type MediaChatDefaults = { text?: string; provider?: string; model?: string };

/** Parsed options, or a `bad_request` error naming the offending field. */
export type ParsedMediaOptions = { ok: true; value: MediaOptions } | { ok: false; error: MediaError };

/**
 * Validates `chat_message.media_generation` for the media route. The chat text becomes the image prompt or
 * the speech input, and the message's provider/model apply, unless the options give their own.
 */
export function parseMediaOptions(raw: unknown, chat: MediaChatDefaults = {}): ParsedMediaOptions {
  let input = raw;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    const textKey = o.mode === "image" ? "prompt" : o.mode === "speech" ? "input" : undefined;
    input = {
      ...(chat.provider !== undefined && { provider: chat.provider }),
      ...(chat.model !== undefined && { model: chat.model }),
      ...(textKey && chat.text !== undefined && { [textKey]: chat.text }),
      ...o,
    };
  }
  const parsed = MediaOptions.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = parsed.error.issues
    .slice(0, 5)
    .map((i) => `media_generation${i.path.map((p) => `.${String(p)}`).join("")}: ${i.message}`)
    .join("; ");
  return { ok: false, error: { kind: "bad_request", message } };
}
