import type { ImageOptions, SpeechOptions } from "./media-options.js";

/** One generated file: its bytes and MIME type. The server stores and serves it. */
export type MediaAsset = { bytes: Buffer; mimeType: string };

/** Why generation failed: `bad_request` is the client's to fix; `cancelled` means the signal fired. */
export type MediaError = {
  kind: "bad_request" | "provider_error" | "cancelled";
  message: string;
  status?: number;
};

/** Generated assets (one per image, one for speech), or an error value. */
export type MediaOutcome = { ok: true; assets: MediaAsset[] } | { ok: false; error: MediaError };

/**
 * Media generation through a provider's own API. A provider without a capability leaves the
 * method out; `generateMedia` then answers `bad_request` naming the provider.
 */
export interface MediaGenerator {
  /** The provider id, as in `chat_message.provider`. */
  readonly providerId: string;
  generateImage?(options: ImageOptions, signal: AbortSignal): Promise<MediaOutcome>;
  generateSpeech?(options: SpeechOptions, signal: AbortSignal): Promise<MediaOutcome>;
}
