import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type Storage } from "@agentwire-chat/storage";
import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { createLogger } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadConfig } from "../src/config.js";
import { createServices } from "../src/create-services.js";
import { type RunningServer, startServer } from "../src/start-server.js";

const provider = scriptedProviderModule;
let server: RunningServer | undefined;
let collector: Server | undefined;
let storage: Storage | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await storage?.close();
  await new Promise((resolve) => (collector ? collector.close(resolve) : resolve(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = storage = collector = dir = undefined;
});

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpSpan = {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpAttribute[];
};
type OtlpExport = {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
};

/** A stand-in OTLP/HTTP collector (the network edge): records each JSON export it is sent. */
async function startCollector(): Promise<{ url: string; posts: { path: string; body: OtlpExport }[] }> {
  const posts: { path: string; body: OtlpExport }[] = [];
  collector = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      posts.push({ path: req.url ?? "", body: JSON.parse(body) as OtlpExport });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector?.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/otlp/`, posts };
}

const attrValue = (attrs: OtlpAttribute[], key: string) => {
  const v = attrs.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.boolValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
};

describe("tracing in the server process", () => {
  it("reads the OTLP endpoint the way the spec does", () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).toEqual({
      url: "http://collector:4318/v1/traces",
      instanceId: undefined,
    });
    const both = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:9999/custom",
      INSTANCE_ID: "node-a",
    });
    expect(both.tracing).toEqual({ url: "http://traces:9999/custom", instanceId: "node-a" });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://x" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it("exports a turn's spans to the collector as service agentwire, flushed when the server closes", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-otel-"));
    const { url, posts } = await startCollector();
    const config = loadConfig({
      PORT: "0",
      DATABASE_PATH: join(dir, "agentwire.db"),
      AGENTWIRE_SCRIPTED_PROVIDER: provider,
      DEFAULT_PROVIDER: "scripted",
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      INSTANCE_ID: "node-a",
    });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`);
    const frames: { type: string; done?: boolean; thread_id?: string }[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data)) as (typeof frames)[number];
        frames.push(frame);
        if (frame.type === "chunk" && frame.done) resolve();
      }),
    );
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ command: "chat_message", data: { content: "hello" } }));
    await done;
    ws.close();
    // Spans wait in a batch; closing the server flushes them.
    await server.close();

    expect(posts.map((p) => p.path)).toContain("/otlp/v1/traces");
    const resourceSpans = posts.flatMap((p) => p.body.resourceSpans);
    for (const r of resourceSpans) {
      expect(attrValue(r.resource.attributes, "service.name")).toBe("agentwire");
      expect(attrValue(r.resource.attributes, "service.instance.id")).toBe("node-a");
    }
    const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const root = spans.find((s) => s.name === "invoke_agent agentwire");
    const chat = spans.find((s) => s.name === "chat scripted-1");
    expect(root && chat).toBeTruthy();
    expect(chat?.parentSpanId).toBe(root?.spanId);
    expect(attrValue(root?.attributes ?? [], "agentwire.thread_id")).toBe(
      frames.find((f) => f.thread_id)?.thread_id,
    );
    expect(attrValue(root?.attributes ?? [], "agentwire.turn.status")).toBe("complete");
    expect(attrValue(chat?.attributes ?? [], "gen_ai.usage.input_tokens")).toBe(12);
    expect(attrValue(chat?.attributes ?? [], "gen_ai.usage.output_tokens")).toBe(4);
  });

  it("makes no tracer without an OTLP endpoint, one with it", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-otel-"));
    storage = await openStorage({ databasePath: join(dir, "agentwire.db") });
    const logger = createLogger({ level: "silent" });
    const binding = { openSockets: () => 0 };
    const off = await createServices(loadConfig({ DATABASE_PATH: dir }), logger, storage.repos, binding);
    expect(off.services.chat?.observeTurn).toBeUndefined();
    expect(off.services.chat?.observer).toBe(off.metrics);
    await off.close();
    const config = loadConfig({ DATABASE_PATH: dir, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/" });
    const on = await createServices(config, logger, storage.repos, binding);
    expect(on.services.chat?.observeTurn).toBeTypeOf("function");
    await on.close();
  });
});
