import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAIMediaGenerator, type MediaGenerator } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import { type RouteTestServer, startRouteServer } from "@agentwire-chat/testkit/route-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("not really a png, but it starts like one"),
]);
const MP3 = Buffer.from("ID3 pretend mp3 bytes");

/** A local server speaking the OpenAI images (b64_json) and speech formats. */
type FakeOpenAI = {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
};
async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: FakeOpenAI["requests"] = [];
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    requests.push({ path: req.url ?? "", body });
    if (req.url === "/v1/images/generations") {
      const n = typeof body.n === "number" ? body.n : 1;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          created: 1,
          data: Array.from({ length: n }, () => ({ b64_json: PNG.toString("base64") })),
        }),
      );
    } else if (req.url === "/v1/audio/speech") {
      res.writeHead(200, { "content-type": "audio/mpeg", "content-length": String(MP3.length) });
      res.end(MP3);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "no such route" } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let server: RouteTestServer | undefined;
let fake: FakeOpenAI;
let dataDir: string;
beforeEach(async () => {
  fake = await startFakeOpenAI();
  dataDir = mkdtempSync(join(tmpdir(), "agentwire-media-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startMediaServer(extra: MediaGenerator[] = [], maxAssetBytes?: number) {
  const openai = createOpenAIMediaGenerator({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
  return startRouteServer([], {
    auth: "token",
    media: { generators: [openai, ...extra], dataDir, ...(maxAssetBytes !== undefined && { maxAssetBytes }) },
  });
}

const assetIds = (text: string) =>
  [...text.matchAll(/\/api\/assets\/([0-9a-f-]+)/g)].map((m) => m[1] as string);

describe("the media route: media generation", () => {
  it("generates an image, stores it under the data directory and serves it to its owner only", async () => {
    server = await startMediaServer();
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const client = await server.connect({ token: alice });
    client.command("chat_message", {
      content: "a red cube",
      media_generation: { mode: "image", size: "256x256", n: 2 },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(frames.map((f) => f.type)).toEqual([
      "thread",
      "message",
      "turn_started",
      "agent_state",
      "message",
      "usage",
      "agent_state",
      "chunk",
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({
      path: "/v1/images/generations",
      body: { prompt: "a red cube", size: "256x256", n: 2 },
    });

    const [user, final] = ofType(frames, "message");
    expect(user?.message).toMatchObject({ role: "user", content: "a red cube" });
    expect(final?.message).toMatchObject({ role: "assistant", status: "complete", provider: "openai" });
    const ids = assetIds(String(final?.message.content));
    expect(ids).toHaveLength(2);
    expect(final?.message.content).toContain(`![Generated image 1](/api/assets/${ids[0]})`);

    for (const id of ids) {
      const row = await server.repos.assets.get("alice", id);
      expect(row).toMatchObject({
        mimeType: "image/png",
        bytes: PNG.length,
        threadId: (frames[0] as { thread_id: string }).thread_id,
      });
      expect(row?.path).toBe(join(dataDir, "assets", "alice", id));
      expect(statSync(row?.path as string).mode & 0o777).toBe(0o600);

      const res = await server.fetch(`/api/assets/${id}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-disposition")).toBe("inline");
      expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);

      const theirs = await server.fetch(`/api/assets/${id}`, { token: bob });
      const missing = await server.fetch("/api/assets/nope", { token: bob });
      expect(theirs.status).toBe(404);
      expect(await theirs.json()).toEqual(await missing.json());
      expect((await server.fetch(`/api/assets/${id}`)).status).toBe(401);
    }
  });

  it("generates speech served as audio/mpeg", async () => {
    server = await startMediaServer();
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    client.command("chat_message", {
      content: "Good morning",
      media_generation: { mode: "speech", voice: "nova", format: "mp3" },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(fake.requests[0]).toMatchObject({
      path: "/v1/audio/speech",
      body: { input: "Good morning", voice: "nova", response_format: "mp3" },
    });
    const final = ofType(frames, "message").at(-1)?.message;
    const [id] = assetIds(String(final?.content));
    expect(final?.content).toContain("[Generated speech (audio/mpeg)]");
    const res = await server.fetch(`/api/assets/${id}`, { token: alice });
    expect(res.headers.get("content-type")).toBe("audio/mpeg");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(MP3);
  });

  it("refuses bad options and a provider without the capability with bad_request, storing nothing", async () => {
    const imageOnly: MediaGenerator = {
      providerId: "imgonly",
      generateImage: async () => ({ ok: true, assets: [{ bytes: PNG, mimeType: "image/png" }] }),
    };
    server = await startMediaServer([imageOnly]);
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    const refused = async (media_generation: Record<string, unknown>, requestId: string, extra = {}) => {
      client.command("chat_message", { content: "hello", media_generation, ...extra }, requestId);
      const error = await client.next("error", { where: (e) => e.request_id === requestId });
      expect(error.code).toBe("bad_request");
      return error.message;
    };
    expect(await refused({ mode: "image", size: "7x7" }, "size")).toContain("media_generation.size");
    expect(await refused({ mode: "image", colour: "red" }, "colour")).toContain("colour");
    expect(await refused({ mode: "speech", voice: "robot" }, "voice")).toContain("media_generation.voice");
    expect(await refused({ mode: "speech", provider: "imgonly" }, "cap")).toContain(
      'provider "imgonly" cannot generate speech',
    );
    expect(await refused({ mode: "image" }, "unknown", { provider: "nope" })).toContain('provider "nope"');
    expect(await server.repos.threads.list("alice")).toEqual([]);
    expect(fake.requests).toEqual([]);
    await client.ping();
  });

  it("a provider error ends the turn with provider_error; an oversized asset is refused and not written", async () => {
    const failing: MediaGenerator = {
      providerId: "broken",
      generateImage: async () => ({
        ok: false,
        error: { kind: "provider_error", message: "broken: 500 upstream" },
      }),
    };
    server = await startMediaServer([failing], 10);
    const alice = await server.createToken("alice");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "x", media_generation: { mode: "image", provider: "broken" } });
    const first = await client.collectUntil(isDone);
    expectWellFormedTurn(first);
    expect(ofType(first, "error")[0]).toMatchObject({
      code: "provider_error",
      message: "broken: 500 upstream",
    });
    expect(ofType(first, "message").at(-1)?.message).toMatchObject({ status: "error" });

    client.command("chat_message", {
      content: "y",
      thread_id: (first[0] as { thread_id: string }).thread_id,
      media_generation: { mode: "image" },
    });
    const second = await client.collectUntil(isDone);
    expectWellFormedTurn(second, first.length + 1);
    expect(ofType(second, "error")[0]?.message).toContain("over the 10 byte limit");
    expect(
      await server.repos.assets.listForThread("alice", (first[0] as { thread_id: string }).thread_id),
    ).toEqual([]);
  });

  it("ends with one budget_exceeded when the generation outlives the wall clock, and cancels it", async () => {
    let cancelled = false;
    const stuck: MediaGenerator = {
      providerId: "stuck",
      generateImage: (_options, signal) =>
        new Promise((resolve) =>
          signal.addEventListener(
            "abort",
            () => {
              cancelled = true;
              resolve({ ok: false, error: { kind: "cancelled", message: "aborted" } });
            },
            { once: true },
          ),
        ),
    };
    server = await startRouteServer([], {
      limits: { MAX_WALL_CLOCK_MS: 50 },
      media: { generators: [stuck], dataDir },
    });
    const client = await server.connect();
    client.command("chat_message", { content: "x", media_generation: { mode: "image", provider: "stuck" } });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(cancelled).toBe(true);
    expect(frames.map((f) => f.type)).toEqual([
      "thread",
      "message",
      "turn_started",
      "agent_state",
      "budget_exceeded",
      "message",
      "usage",
      "agent_state",
      "chunk",
    ]);
    const [report] = ofType(frames, "budget_exceeded");
    expect(report).toMatchObject({ reason: "wall_clock", limit: 50 });
    expect(report?.observed).toBeGreaterThanOrEqual(50);
    expect(ofType(frames, "message").at(-1)?.message).toMatchObject({
      status: "budget_exceeded",
      content: "",
    });
    const turn = await server.repos.turns.latest("local", (frames[0] as { thread_id: string }).thread_id);
    expect(turn?.status).toBe("budget_exceeded");
  });

  it("is unavailable without media services, and GET /api/assets is not served", async () => {
    server = await startRouteServer([]);
    const client = await server.connect();
    client.command("chat_message", { content: "x", media_generation: { mode: "image" } }, "m");
    expect(await client.next("error")).toMatchObject({ code: "unavailable", request_id: "m" });
    expect((await server.fetch("/api/assets/anything")).status).toBe(404);
    expect(await server.repos.threads.list("local")).toEqual([]);
  });
});
