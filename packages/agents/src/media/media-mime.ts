import type { SpeechOptions } from "./media-options.js";

/** The MIME type of each speech format OpenAI returns (opus comes in an Ogg container). */
export const SPEECH_MIME: Record<SpeechOptions["format"], string> = {
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

const IMAGE_MIME: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

/**
 * The MIME type of image bytes, by their magic number; falls back to the declared format. Sniffing
 * first because the stored asset is served with this type, and a declared format can be wrong.
 */
export function imageMimeType(bytes: Buffer, declared: string | undefined): string {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (
    bytes.subarray(0, 4).toString("latin1") === "RIFF" &&
    bytes.subarray(8, 12).toString("latin1") === "WEBP"
  ) {
    return "image/webp";
  }
  return IMAGE_MIME[declared ?? "png"] ?? "image/png";
}
