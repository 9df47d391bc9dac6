/**
 * What varies from one run of a scenario to the next, replaced by stable values so a recording can be
 * compared with its fixture: thread and message ids (numbered in order of first appearance), any other
 * UUID in a string, timestamps and durations. `seq`, tool call ids, texts and usage stay as sent.
 */
import type { Recording } from "./frame-scenarios.js";

/** The one timestamp every recorded `created_at` becomes. */
export const RECORDED_AT = "2026-01-01T00:00:00.000Z";
/** The one duration every recorded `duration_ms` becomes. */
export const RECORDED_DURATION_MS = 1;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Numbers ids by kind in order of first appearance: the same id always gets the same name. */
class IdNames {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  name(id: string, prefix: string): string {
    const known = this.names.get(id);
    if (known !== undefined) return known;
    const n = (this.counts.get(prefix) ?? 0) + 1;
    this.counts.set(prefix, n);
    const name = `${prefix}_${n}`;
    this.names.set(id, name);
    return name;
  }
}

/** A copy of the recording with the run-specific values replaced; frames keep their order and `seq`. */
export function normaliseRecording(recording: Recording): Recording {
  const ids = new IdNames();
  const walk = (value: unknown, key?: string, parent?: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, undefined, key));
    if (value !== null && typeof value === "object") {
      // `type` first, then the rest in the order sent: the fixtures read like the protocol's tables.
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
        a === "type" ? -1 : b === "type" ? 1 : 0,
      );
      return Object.fromEntries(entries.map(([k, v]) => [k, walk(v, k, key)]));
    }
    if (key === "created_at" || key === "updated_at") return RECORDED_AT;
    if (key === "duration_ms" && typeof value === "number") return RECORDED_DURATION_MS;
    if (typeof value !== "string") return value;
    if (key === "thread_id") return ids.name(value, "th");
    // A stored row's id (on `message` frames).
    if (key === "id" && parent === "message") return ids.name(value, "m");
    return value.replace(UUID, (id) => ids.name(id, "id"));
  };
  // Frames before commands: ids are numbered in the order the server first sent them.
  const frames = recording.frames.map((f) => walk(f)) as Recording["frames"];
  const sent = recording.sent.map((s) => walk(s)) as Recording["sent"];
  return { sent, frames };
}
