import OpenAI from "openai";
import { toProviderErrorInfo } from "../providers/provider-error.js";
import type { MediaAsset, MediaError, MediaGenerator, MediaOutcome } from "./media-generator.js";
import { imageMimeType, SPEECH_MIME } from "./media-mime.js";
import type { ImageOptions, SpeechOptions } from "./media-options.js";
import { readCappedBody } from "./read-capped-body.js";

export type OpenAIMediaGeneratorOptions = {
  apiKey: string;
  baseURL?: string;
  /** Per-request timeout, ms. */
  timeout?: number;
  maxRetries?: number;
  /** Cap on the bytes one generation may return (all images together); default 25 MB. */
  maxBytes?: number;
  /** Provider id; default "openai". */
  providerId?: string;
  defaultImageModel?: string;
  defaultSpeechModel?: string;
  /** Replaces global fetch (tests, proxies). */
  fetch?: typeof fetch;
};

const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

/** Images (`POST /images/generations`, base64) and text-to-speech (`POST /audio/speech`) via the openai SDK. */
export function createOpenAIMediaGenerator(opts: OpenAIMediaGeneratorOptions): MediaGenerator {
  const client = new OpenAI({
    apiKey: opts.apiKey,
    ...(opts.baseURL !== undefined && { baseURL: opts.baseURL }),
    ...(opts.timeout !== undefined && { timeout: opts.timeout }),
    ...(opts.maxRetries !== undefined && { maxRetries: opts.maxRetries }),
    ...(opts.fetch !== undefined && { fetch: opts.fetch }),
  });
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const providerId = opts.providerId ?? "openai";
  const fail = (err: unknown, signal: AbortSignal): MediaOutcome => {
    if (signal.aborted)
      return { ok: false, error: { kind: "cancelled", message: "media generation stopped" } };
    const info = toProviderErrorInfo(err, {
      beforeStream: true,
      secrets: [opts.apiKey],
      ...(opts.timeout !== undefined && { timeoutMs: opts.timeout }),
    });
    const error: MediaError = { kind: "provider_error", message: `${providerId}: ${info.message}` };
    if (info.status !== undefined) error.status = info.status;
    return { ok: false, error };
  };
  const tooLarge = (): MediaOutcome => ({
    ok: false,
    error: {
      kind: "provider_error",
      message: `${providerId}: the generated media exceeds ${maxBytes} bytes`,
    },
  });

  return {
    providerId,

    async generateImage(options: ImageOptions, signal: AbortSignal): Promise<MediaOutcome> {
      const model = options.model ?? opts.defaultImageModel ?? "gpt-image-1";
      let res: OpenAI.ImagesResponse;
      try {
        res = await client.images.generate(
          {
            model,
            prompt: options.prompt,
            n: options.n,
            size: options.size,
            ...(options.quality !== undefined && { quality: options.quality }),
            ...(options.output_format !== undefined && { output_format: options.output_format }),
            ...(options.background !== undefined && { background: options.background }),
            // dall-e models answer with URLs unless asked; gpt-image models always send base64 and refuse the field.
            ...(model.startsWith("dall-e") && { response_format: "b64_json" as const }),
          },
          { signal },
        );
      } catch (err) {
        return fail(err, signal);
      }
      const data = res.data ?? [];
      if (data.length === 0) return fail(new Error("the response held no image"), signal);
      const assets: MediaAsset[] = [];
      let total = 0;
      for (const image of data) {
        if (typeof image.b64_json !== "string") {
          return fail(new Error("the response held an image URL instead of image data"), signal);
        }
        // Check the decoded size before decoding: base64 is 4 characters per 3 bytes.
        total += Math.floor((image.b64_json.length * 3) / 4);
        if (total > maxBytes) return tooLarge();
        const bytes = Buffer.from(image.b64_json, "base64");
        assets.push({ bytes, mimeType: imageMimeType(bytes, res.output_format ?? options.output_format) });
      }
      return { ok: true, assets };
    },

    async generateSpeech(options: SpeechOptions, signal: AbortSignal): Promise<MediaOutcome> {
      let response: Response;
      try {
        response = await client.audio.speech.create(
          {
            model: options.model ?? opts.defaultSpeechModel ?? "gpt-4o-mini-tts",
            input: options.input,
            voice: options.voice,
            response_format: options.format,
            ...(options.speed !== undefined && { speed: options.speed }),
            ...(options.instructions !== undefined && { instructions: options.instructions }),
          },
          { signal },
        );
      } catch (err) {
        return fail(err, signal);
      }
      let body: Awaited<ReturnType<typeof readCappedBody>>;
      try {
        body = await readCappedBody(response, maxBytes);
      } catch (err) {
        return fail(err, signal);
      }
      if (!body.ok) return tooLarge();
      if (body.bytes.length === 0) return fail(new Error("the response held no audio"), signal);
      return { ok: true, assets: [{ bytes: body.bytes, mimeType: SPEECH_MIME[options.format] }] };
    },
  };
}
