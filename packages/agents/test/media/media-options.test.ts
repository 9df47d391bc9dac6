import { describe, expect, it } from "vitest";
import { generateMedia } from "../../src/media/generate-media.js";
import type { MediaGenerator } from "../../src/media/media-generator.js";
import { parseMediaOptions } from "../../src/media/media-options.js";

describe("parseMediaOptions", () => {
  it("fills the prompt, provider and model from the chat message, and applies defaults", () => {
    expect(
      parseMediaOptions({ mode: "image" }, { text: "a red fox", provider: "openai", model: "gpt-image-1" }),
    ).toEqual({
      ok: true,
      value: {
        mode: "image",
        provider: "openai",
        model: "gpt-image-1",
        prompt: "a red fox",
        size: "1024x1024",
        n: 1,
      },
    });
    expect(
      parseMediaOptions({ mode: "speech", voice: "nova", input: "own text" }, { text: "chat text" }),
    ).toEqual({
      ok: true,
      value: { mode: "speech", input: "own text", voice: "nova", format: "mp3" },
    });
  });

  it("refuses out-of-bounds options with messages naming the field", () => {
    const bad = (raw: unknown, text?: string) => {
      const res = parseMediaOptions(raw, text === undefined ? {} : { text });
      if (res.ok) throw new Error("expected a refusal");
      expect(res.error.kind).toBe("bad_request");
      return res.error.message;
    };
    expect(bad({ mode: "image", n: 5 }, "x")).toMatch(/^media_generation\.n: .*4/);
    expect(bad({ mode: "image", size: "999x999" }, "x")).toMatch(/^media_generation\.size: Invalid option/);
    expect(bad({ mode: "image" }, "p".repeat(4001))).toMatch(/^media_generation\.prompt: .*4000/);
    expect(bad({ mode: "image" })).toMatch(/^media_generation\.prompt: /);
    expect(bad({ mode: "speech" }, "s".repeat(4097))).toMatch(/^media_generation\.input: .*4096/);
    expect(bad({ mode: "speech", voice: "robot" }, "hi")).toMatch(/^media_generation\.voice: Invalid option/);
    expect(bad({ mode: "speech", format: "ogg" }, "hi")).toMatch(/^media_generation\.format: /);
    expect(bad({ mode: "speech", speed: 9 }, "hi")).toMatch(/^media_generation\.speed: /);
    expect(bad({ mode: "image", sizes: "1024x1024" }, "x")).toMatch(/sizes/);
    expect(bad({ mode: "video" }, "x")).toMatch(/^media_generation\.mode: /);
  });
});

describe("generateMedia", () => {
  const imageOnly: MediaGenerator = {
    providerId: "pics",
    generateImage: async () => ({ ok: true, assets: [{ bytes: Buffer.from("x"), mimeType: "image/png" }] }),
  };
  const generators = { pics: imageOnly };
  const signal = new AbortController().signal;
  const parse = (raw: unknown) => {
    const res = parseMediaOptions(raw, { text: "hello" });
    if (!res.ok) throw new Error(res.error.message);
    return res.value;
  };

  it("dispatches to the provider's generator", async () => {
    expect(await generateMedia(generators, parse({ mode: "image", provider: "pics" }), signal)).toMatchObject(
      {
        ok: true,
      },
    );
  });

  it("answers bad_request naming a provider without the capability", async () => {
    expect(await generateMedia(generators, parse({ mode: "speech", provider: "pics" }), signal)).toEqual({
      ok: false,
      error: { kind: "bad_request", message: 'provider "pics" cannot generate speech' },
    });
    expect(await generateMedia(new Map(), parse({ mode: "image", provider: "anthropic" }), signal)).toEqual({
      ok: false,
      error: { kind: "bad_request", message: 'provider "anthropic" cannot generate images' },
    });
    expect(
      await generateMedia(generators, parse({ mode: "image", provider: "constructor" }), signal),
    ).toMatchObject({
      ok: false,
      error: { kind: "bad_request" },
    });
  });
});
