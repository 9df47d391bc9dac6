/**
 * The frame sequences recorded from the real server (packages/protocol/fixtures/frames, written by
 * `pnpm fixtures:record`): the client is tested on what the server sends, not on hand-written frames.
 */
import { readdirSync, readFileSync } from "node:fs";
import { ServerFrame } from "@agentwire-chat/protocol";

const DIR = new URL("../../../packages/protocol/fixtures/frames/", import.meta.url);

/** A recorded scenario: the commands the client sent and every frame it received, in order. */
export type RecordedTurn = {
  scenario: string;
  description: string;
  sent: { after_seq: number; command: string; request_id?: string; data: unknown }[];
  frames: ServerFrame[];
};

/** Every recorded scenario's name. */
export function recordedScenarios(): string[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** One recorded scenario, each frame checked against the protocol's schema. */
export function recorded(scenario: string): RecordedTurn {
  const raw = JSON.parse(readFileSync(new URL(`${scenario}.json`, DIR), "utf8")) as RecordedTurn;
  return { ...raw, frames: raw.frames.map((f) => ServerFrame.parse(f)) };
}

/** The frames of a recorded scenario, up to and including the one with `seq` (all when omitted). */
export function recordedFrames(scenario: string, uptoSeq?: number): ServerFrame[] {
  const frames = recorded(scenario).frames;
  return uptoSeq === undefined ? frames : frames.filter((f) => !("seq" in f) || (f.seq ?? 0) <= uptoSeq);
}
