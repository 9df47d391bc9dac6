/**
 * The frame sequences recorded from the real server (packages/protocol/fixtures/frames, written by
 * `pnpm fixtures:record`): the renderer is tested on what the server sends, not on hand-written frames.
 */
import { readdirSync, readFileSync } from "node:fs";
import { ServerFrame } from "@agentwire-chat/protocol";

const DIR = new URL("../../../packages/protocol/fixtures/frames/", import.meta.url);

/** Every recorded scenario's name. */
export function recordedScenarios(): string[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** One recorded scenario's frames, in the order the server sent them, each checked against the schema. */
export function recordedFrames(scenario: string): ServerFrame[] {
  const raw = JSON.parse(readFileSync(new URL(`${scenario}.json`, DIR), "utf8")) as { frames: unknown[] };
  return raw.frames.map((f) => ServerFrame.parse(f));
}
