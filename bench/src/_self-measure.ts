// What a measured server process of `pnpm bench stream` and `overload` does besides serving (forked
// with IPC): it measures itself over a window the parent opens and closes: CPU time (user+system) and
// event-loop delay, RSS and heap after gc(), and CPU samples taken by a worker thread every
// `cpuSampleMs`. The agentwire server and the bare relay (the floor) share it, so both arms are
// measured the same way. No agentwire import: the bare relay must not load the server.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";

export type StreamOp = "snapshot" | "start-window" | "end-window" | "stop";
export type StreamRequest = { id: number; op: StreamOp };
export type StreamSnapshot = { rss: number; heapUsed: number };
/** [CLOCK_MONOTONIC ms (see monoMs), process CPU µs (user+system) since the process started]. */
export type CpuSample = [number, number];
export type StreamWindow = {
  cpu_us: number;
  user_us: number;
  system_us: number;
  lag_ms: { p50: number; p99: number; max: number };
  cpu_samples: CpuSample[];
};

// The sampler is a worker thread: its timer keeps time while the server's event loop lags seconds
// behind, and process.cpuUsage() there is the whole process's (getrusage RUSAGE_SELF). Plain
// CommonJS, no tsx: nothing to load.
const SAMPLER = `
const { parentPort, workerData } = require("node:worker_threads");
const sample = () => {
  const c = process.cpuUsage();
  samples.push([Number(process.hrtime.bigint()) / 1e6, c.user + c.system]);
};
let samples = [];
let timer;
parentPort.on("message", (op) => {
  if (op === "start") {
    samples = [];
    sample();
    timer = setInterval(sample, workerData.intervalMs);
    parentPort.postMessage("started");
  } else {
    clearInterval(timer);
    sample();
    parentPort.postMessage(samples);
  }
});
`;

/**
 * Answers the parent's window requests for this process; `stop` runs `close` and exits. Sends
 * `ready` (the socket URL) to the parent.
 */
export function serveMeasurements(url: string, cpuSampleMs: number, close: () => Promise<void>): void {
  const lagResolutionMs = 10;
  let lag = monitorEventLoopDelay({ resolution: lagResolutionMs });
  let cpu0 = process.cpuUsage();
  const sampler = new Worker(SAMPLER, { eval: true, execArgv: [], workerData: { intervalMs: cpuSampleMs } });
  sampler.unref();
  const fromSampler = <T>(op: "start" | "stop") =>
    new Promise<T>((resolve) => {
      sampler.once("message", resolve);
      sampler.postMessage(op);
    });

  process.on("message", async (m: StreamRequest) => {
    const reply = (body: object) => process.send?.({ ...body, id: m.id });
    switch (m.op) {
      case "snapshot": {
        lag.disable();
        (globalThis as { gc?: () => void }).gc?.();
        lag.enable();
        const mem = process.memoryUsage();
        reply({ rss: mem.rss, heapUsed: mem.heapUsed } satisfies StreamSnapshot);
        break;
      }
      case "start-window":
        await fromSampler("start");
        lag = monitorEventLoopDelay({ resolution: lagResolutionMs });
        lag.enable();
        cpu0 = process.cpuUsage();
        reply({});
        break;
      case "end-window": {
        lag.disable();
        const cpu = process.cpuUsage(cpu0);
        const ms = (ns: number) => Math.max(0, ns / 1e6 - lagResolutionMs);
        reply({
          cpu_us: cpu.user + cpu.system,
          user_us: cpu.user,
          system_us: cpu.system,
          lag_ms: { p50: ms(lag.percentile(50)), p99: ms(lag.percentile(99)), max: ms(lag.max) },
          cpu_samples: await fromSampler<CpuSample[]>("stop"),
        } satisfies StreamWindow);
        break;
      }
      case "stop":
        await close();
        reply({});
        process.exit(0);
    }
  });
  // The parent died (or was killed): nobody will ask this process to stop.
  process.once("disconnect", () => process.exit(0));
  process.send?.({ ready: url });
}
