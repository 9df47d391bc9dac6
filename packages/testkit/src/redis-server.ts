import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./free-port.js";
import { until } from "./until.js";

/** A throwaway Redis owned by the test process (its child): no persistence, gone with stop(). */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  stop(): Promise<void>;
}

/** What is missing to run Redis tests, or undefined when redis-server is on the PATH. */
export function redisMissing(): string | undefined {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "Redis is not installed: no redis-server on the PATH (apt-get install redis-server; .ci/run does)";
  }
}

/** Starts redis-server on a free 127.0.0.1 port in a temp dir and waits until it answers PING. */
export async function startRedis(): Promise<TestRedis> {
  const missing = redisMissing();
  if (missing) throw new Error(`startRedis: ${missing}`);
  const dir = mkdtempSync(join(tmpdir(), "agentwire-redis-"));
  // Another process can take the port between freePort() and the bind; a fresh port is tried then.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const killNow = () => child.kill("SIGKILL");
    process.once("exit", killNow);
    try {
      await waitForPong(port, child);
    } catch (error) {
      process.removeListener("exit", killNow);
      await kill(child);
      if (attempt < 3 && output.includes("Address already in use")) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`startRedis failed: ${(error as Error).message}\n${output.slice(-2000)}`);
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      stop: async () => {
        process.removeListener("exit", killNow);
        await kill(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

async function waitForPong(port: number, child: ChildProcess): Promise<void> {
  const answered = async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("redis-server exited");
    return ping(port);
  };
  await until(answered, "redis-server to answer PING", { everyMs: 20 });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5000).then(() => child.kill("SIGKILL"))]);
  await exited;
}
