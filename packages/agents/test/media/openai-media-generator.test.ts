import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIMediaGenerator } from "../../src/media/openai-media-generator.js";
import { JPEG_BYTES, json, PNG_BYTES, startFakeOpenAI } from "./fake-openai-server.js";

type Fake = Awaited<ReturnType<typeof startFakeOpenAI>>;
let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const live = () => new AbortController().signal;
const generatorFor = (f: Fake, extra: { maxBytes?: number } = {}) =>
  createOpenAIMediaGenerator({
    apiKey: "sk-test-secret-key",
    baseURL: f.baseURL,
    timeout: 10_000,
    maxRetries: 0,
    ...extra,
  });
const image = { mode: "image" as const, prompt: "a fox", size: "1024x1024" as const, n: 1 };
const speech = {
  mode: "speech" as const,
  input: "Hello there",
  voice: "nova" as const,
  format: "mp3" as const,
};

describe("OpenAI images", () => {
  it("returns the decoded bytes with their MIME type", async () => {
    fake = await startFakeOpenAI((_req, res) =>
      json(res, 200, {
        created: 1,
        output_format: "png",
        data: [{ b64_json: PNG_BYTES.toString("base64") }, { b64_json: JPEG_BYTES.toString("base64") }],
      }),
    );
    const out = await generatorFor(fake).generateImage!({ ...image, n: 2, model: "gpt-image-1" }, live());
    expect(out).toEqual({
      ok: true,
      assets: [
        { bytes: PNG_BYTES, mimeType: "image/png" },
        { bytes: JPEG_BYTES, mimeType: "image/jpeg" },
      ],
    });
    expect(fake.requests).toEqual([
      {
        method: "POST",
        url: "/v1/images/generations",
        body: { model: "gpt-image-1", prompt: "a fox", n: 2, size: "1024x1024" },
      },
    ]);
  });

  it("asks dall-e models for base64 rather than URLs", async () => {
    fake = await startFakeOpenAI((_req, res) =>
      json(res, 200, { created: 1, data: [{ b64_json: PNG_BYTES.toString("base64") }] }),
    );
    await generatorFor(fake).generateImage!({ ...image, model: "dall-e-3" }, live());
    expect(fake.requests[0]?.body).toMatchObject({ model: "dall-e-3", response_format: "b64_json" });
  });

  it("refuses a URL answer, an oversized answer, and turns a 500 into an error value", async () => {
    let mode = "url";
    fake = await startFakeOpenAI((_req, res) => {
      if (mode === "url") json(res, 200, { created: 1, data: [{ url: "https://example.com/x.png" }] });
      else if (mode === "big")
        json(res, 200, { created: 1, data: [{ b64_json: Buffer.alloc(4000).toString("base64") }] });
      else json(res, 500, { error: { message: "The server had an error", type: "server_error" } });
    });
    const gen = generatorFor(fake, { maxBytes: 1000 });
    expect(await gen.generateImage!(image, live())).toEqual({
      ok: false,
      error: {
        kind: "provider_error",
        message: "openai: the response held an image URL instead of image data",
      },
    });
    mode = "big";
    expect(await gen.generateImage!(image, live())).toEqual({
      ok: false,
      error: { kind: "provider_error", message: "openai: the generated media exceeds 1000 bytes" },
    });
    mode = "500";
    expect(await gen.generateImage!(image, live())).toEqual({
      ok: false,
      error: {
        kind: "provider_error",
        status: 500,
        message: "openai: server_error: The server had an error",
      },
    });
  });
});

describe("OpenAI speech", () => {
  const AUDIO = Buffer.from("ID3-fake-mp3-bytes");

  it("returns the audio bytes with the format's MIME type", async () => {
    fake = await startFakeOpenAI((_req, res) => {
      res.writeHead(200, { "content-type": "audio/mpeg" });
      res.end(AUDIO);
    });
    const gen = generatorFor(fake);
    expect(await gen.generateSpeech!(speech, live())).toEqual({
      ok: true,
      assets: [{ bytes: AUDIO, mimeType: "audio/mpeg" }],
    });
    expect(await gen.generateSpeech!({ ...speech, format: "opus", speed: 1.5 }, live())).toEqual({
      ok: true,
      assets: [{ bytes: AUDIO, mimeType: "audio/ogg" }],
    });
    expect(fake.requests.map((r) => [r.url, r.body])).toEqual([
      [
        "/v1/audio/speech",
        { model: "gpt-4o-mini-tts", input: "Hello there", voice: "nova", response_format: "mp3" },
      ],
      [
        "/v1/audio/speech",
        {
          model: "gpt-4o-mini-tts",
          input: "Hello there",
          voice: "nova",
          response_format: "opus",
          speed: 1.5,
        },
      ],
    ]);
  });

  it("caps the audio size, even without a content-length", async () => {
    fake = await startFakeOpenAI((_req, res) => {
      res.writeHead(200, { "content-type": "audio/mpeg" });
      res.write(Buffer.alloc(600));
      res.end(Buffer.alloc(600));
    });
    expect(await generatorFor(fake, { maxBytes: 1000 }).generateSpeech!(speech, live())).toEqual({
      ok: false,
      error: { kind: "provider_error", message: "openai: the generated media exceeds 1000 bytes" },
    });
  });

  it("turns a 500 into an error value without leaking the key", async () => {
    fake = await startFakeOpenAI((_req, res) =>
      json(res, 500, { error: { message: "boom for sk-test-secret-key", type: "server_error" } }),
    );
    const out = await generatorFor(fake).generateSpeech!(speech, live());
    expect(out).toMatchObject({ ok: false, error: { kind: "provider_error", status: 500 } });
    expect(JSON.stringify(out)).not.toContain("sk-test-secret-key");
  });

  it("reports a stop as cancelled", async () => {
    let received!: () => void;
    const arrived = new Promise<void>((r) => {
      received = r;
    });
    fake = await startFakeOpenAI(() => received());
    const stop = new AbortController();
    const pending = generatorFor(fake).generateSpeech!(speech, stop.signal);
    await arrived;
    stop.abort();
    expect(await pending).toEqual({
      ok: false,
      error: { kind: "cancelled", message: "media generation stopped" },
    });
  });
});
