import type { MediaGenerator, MediaOutcome } from "./media-generator.js";
import type { MediaOptions } from "./media-options.js";

/** Generators by provider id. */
export type MediaGenerators = ReadonlyMap<string, MediaGenerator> | Readonly<Record<string, MediaGenerator>>;

/** Dispatches parsed media options to the named provider's generator; no such capability → bad_request. */
export async function generateMedia(
  generators: MediaGenerators,
  options: MediaOptions,
  signal: AbortSignal,
): Promise<MediaOutcome> {
  const id = options.provider;
  if (id === undefined) {
    return {
      ok: false,
      error: { kind: "bad_request", message: "media_generation: no provider given and no default" },
    };
  }
  const table = generators as Readonly<Record<string, MediaGenerator>>;
  const generator =
    generators instanceof Map ? generators.get(id) : Object.hasOwn(table, id) ? table[id] : undefined;
  const what = options.mode === "image" ? "generate images" : "generate speech";
  const refuse = (): MediaOutcome => ({
    ok: false,
    error: { kind: "bad_request", message: `provider "${id}" cannot ${what}` },
  });
  if (options.mode === "image") {
    return generator?.generateImage ? generator.generateImage(options, signal) : refuse();
  }
  return generator?.generateSpeech ? generator.generateSpeech(options, signal) : refuse();
}
