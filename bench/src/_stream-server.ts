// The agentwire side of `pnpm bench stream` and `overload`, in its own process (forked with IPC): the
// real server start-up (`startServer`, SQLite file, AUTH_MODE=none) with the paced OpenAI-format
// server as a compatible endpoint, so every chunk goes through the real `openai` SDK, the agent loop,
// the frame log and the socket. It measures itself (_self-measure.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../apps/server/src/config.js";
import { startServer } from "../../apps/server/src/start-server.js";
import { serveMeasurements } from "./_self-measure.js";
import { BENCH_SERVER_LIMITS } from "./_server.js";

const {
  ssePort,
  cpuSampleMs = 25,
  env = {},
} = JSON.parse(process.argv[2] ?? "{}") as {
  ssePort: number;
  cpuSampleMs?: number;
  /** More configuration, as environment entries (e.g. ADMISSION_QUEUE_MAX). */
  env?: Record<string, string>;
};
const dir = mkdtempSync(join(tmpdir(), "agentwire-bench-stream-"));
const config = loadConfig({
  DATABASE_PATH: join(dir, "bench.db"),
  PORT: "0",
  LOG_LEVEL: "warn",
  OPENAI_COMPAT_ENDPOINTS: `paced=http://127.0.0.1:${ssePort}/v1`,
  DEFAULT_PROVIDER: "paced",
  DEFAULT_MODEL: "paced-1",
  PROVIDER_MAX_RETRIES: "0",
  ...env,
});
const server = await startServer(config, { limits: BENCH_SERVER_LIMITS });
serveMeasurements(`${server.url.replace("http", "ws")}/ws`, cpuSampleMs, async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
