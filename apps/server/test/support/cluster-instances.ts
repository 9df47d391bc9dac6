import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentwire-chat/testkit/postgres-server";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import WebSocket from "ws";

const root = join(import.meta.dirname, "../../../..");
const main = join(root, "apps/server/src/main.ts");

/** What a cluster test file runs its server processes with. */
export interface ClusterOptions {
  /** Path of the module the processes load through AGENTWIRE_SCRIPTED_PROVIDER. */
  provider: string;
  /** TURN_LEASE_MS of every process. */
  leaseMs: number;
}

/** One spawned server process and the base url it listens on. */
export interface Instance {
  proc: ChildProcess;
  url: string;
}

/** A WebSocket client that keeps every frame it received, in order. */
export interface ClusterClient {
  ws: WebSocket;
  frames: ServerFrame[];
  send(command: string, data: unknown, requestId?: string): void;
  /** The first frame (already received or still to come) that matches. */
  until(match: (frame: ServerFrame) => boolean): Promise<ServerFrame>;
}

/** What `useCluster` gives a test file. */
export interface Cluster {
  /** True when Redis or Postgres is missing and AGENTWIRE_SKIP_SERVICES=1: the file's describe skips. */
  skip: boolean;
  /** The shared Redis, for tests that look at its keys. */
  redisUrl(): string;
  /** The current test's Postgres database, for tests that read stored rows directly. */
  databaseUrl(): string;
  /** Spawns a server process on the test's database and the shared Redis; resolves once it listens. */
  instance(name: string, env?: Record<string, string>): Promise<Instance>;
  /** The upgrade's HTTP status: 101 when a socket opened (it is kept open), else e.g. 429. */
  upgrade(url: string, headers?: Record<string, string>): Promise<{ status: number; ws?: WebSocket }>;
  /** Opens a socket to `url`'s /ws (throws when the upgrade is refused) and records its frames. */
  client(url: string, headers?: Record<string, string>): Promise<ClusterClient>;
}

/**
 * Real server processes on one real Postgres and one real Redis: one Redis and one Postgres cluster per
 * file, a fresh database and temp dir per test; every process and socket a test opened is gone after it.
 */
export function useCluster({ provider, leaseMs }: ClusterOptions): Cluster {
  const skip = skipMissingService(redisMissing() ?? postgresMissing());
  let redis: TestRedis | undefined;
  let postgres: TestPostgres | undefined;
  /** The database and temp dir of the current test (all its instances share them). */
  let databaseUrl: string;
  let dir: string | undefined;
  const children: ChildProcess[] = [];
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    if (skip) return;
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  }, 60_000);
  beforeEach(async () => {
    if (!postgres) return;
    databaseUrl = await postgres.createDatabase();
    dir = mkdtempSync(join(tmpdir(), "agentwire-cluster-"));
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.terminate();
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });

  async function instance(name: string, env: Record<string, string> = {}): Promise<Instance> {
    const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=@agentwire-chat/source", main], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: "0",
        DATABASE_URL: databaseUrl,
        // Unused with DATABASE_URL, but the data dir derives from it: keep it out of the checkout.
        DATABASE_PATH: join(dir!, "unused.db"),
        AGENTWIRE_SCRIPTED_PROVIDER: provider,
        DEFAULT_PROVIDER: "scripted",
        REDIS_URL: redis!.url,
        INSTANCE_ID: name,
        TURN_LEASE_MS: String(leaseMs),
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(proc);
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on("line", (line) => {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "agentwire listening" && entry.url) resolve(entry.url);
      });
      proc.once("exit", (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    });
    return { proc, url };
  }

  function upgrade(
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; ws?: WebSocket }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, { headers });
      sockets.push(ws);
      ws.once("open", () => resolve({ status: 101, ws }));
      ws.once("unexpected-response", (_req, res) => {
        resolve({ status: res.statusCode ?? 0 });
        ws.terminate();
      });
      ws.once("error", reject);
    });
  }

  async function client(url: string, headers?: Record<string, string>): Promise<ClusterClient> {
    const { status, ws } = await upgrade(url, headers);
    if (!ws) throw new Error(`upgrade refused with HTTP ${status}`);
    const frames: ServerFrame[] = [];
    const waiters: { match: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }[] = [];
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      frames.push(frame);
      for (const w of waiters.splice(0)) {
        if (w.match(frame)) w.resolve(frame);
        else waiters.push(w);
      }
    });
    return {
      ws,
      frames,
      send: (command, data, requestId) =>
        ws.send(JSON.stringify({ command, data, ...(requestId !== undefined && { request_id: requestId }) })),
      until: (match) =>
        new Promise<ServerFrame>((resolve) => {
          const found = frames.find(match);
          if (found) resolve(found);
          else waiters.push({ match, resolve });
        }),
    };
  }

  return { skip, redisUrl: () => redis!.url, databaseUrl: () => databaseUrl, instance, upgrade, client };
}

/** Whether the frame ends a turn. */
export const isDone = (f: ServerFrame) => f.type === "chunk" && f.done === true;

/** The seqs of the frames that carry one, in order. */
export const seqsOf = (frames: ServerFrame[]) =>
  frames.map((f) => (f as { seq?: number }).seq).filter((s) => s !== undefined);

/** The thread's stored messages, read over HTTP (as the token's user when one is given). */
export async function messagesOf(url: string, threadId: string, token?: string): Promise<StoredMessage[]> {
  const response = await fetch(`${url}/api/threads/${threadId}/messages`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}
