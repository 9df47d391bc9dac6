import type { FrameLogMemoryStats } from "@agentwire-chat/storage";
import { Counter, Gauge, type Registry } from "prom-client";

/**
 * Adds the frame log's memory to a registry, read at scrape time: `agentwire_frame_log_memory_bytes`
 * (frames held, by JSON length, against FRAME_LOG_MEMORY_BYTES) and
 * `agentwire_frame_log_evictions_total` (idle threads forgotten to stay under it). A log that keeps no
 * count (`stats` answers undefined) reports nothing.
 */
export function registerFrameLogMetrics(
  registry: Registry,
  stats: () => FrameLogMemoryStats | undefined,
): void {
  const registers = [registry];
  new Gauge({
    name: "agentwire_frame_log_memory_bytes",
    help: "Frames the frame log holds in memory (their JSON length): pending, in a commit, or kept for replay",
    registers,
    collect() {
      const s = stats();
      if (s) this.set(s.bytes);
    },
  });
  new Gauge({
    name: "agentwire_frame_log_memory_max_bytes",
    help: "FRAME_LOG_MEMORY_BYTES: above it the least recently used idle threads leave memory",
    registers,
    collect() {
      const s = stats();
      if (s && Number.isFinite(s.maxBytes)) this.set(s.maxBytes);
    },
  });
  new Counter({
    name: "agentwire_frame_log_evictions_total",
    help: "Idle threads the frame log forgot to stay under FRAME_LOG_MEMORY_BYTES (replays read them from the store)",
    registers,
    collect() {
      const s = stats();
      if (!s) return;
      this.reset();
      this.inc(s.evictions);
    },
  });
}
