/**
 * The contract document is what the server sends: every scenario runs through the real server and its
 * normalised frame sequence must equal the recorded fixture, and docs/protocol.md's example must be the
 * recorded one. With RECORD_FRAMES=1 (`pnpm fixtures:record`) it writes them instead.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn } from "@agentwire-chat/testkit/chat-harness";
import { describe, expect, it } from "vitest";
import { expectStartsEnded } from "../chat/turn-helpers.js";
import {
  DOC_SCENARIO,
  docBlock,
  FRAME_FIXTURES_DIR,
  type FrameFixture,
  fixturePath,
  PROTOCOL_DOC,
  RECORD_COMMAND,
  readFixture,
  renderForDoc,
  withDocBlock,
  writeFixture,
} from "./frame-fixtures.js";
import { frameScenarios } from "./frame-scenarios.js";
import { normaliseRecording } from "./normalise-recording.js";

const recording = process.env.RECORD_FRAMES === "1";
const rerun = `If the change is intended, run \`${RECORD_COMMAND}\` and commit the updated fixtures and docs/protocol.md.`;

describe(recording ? "recording frame fixtures" : "recorded frame fixtures match the server", () => {
  it.each(frameScenarios.map((s) => [s.name, s] as const))("%s", async (name, scenario) => {
    const raw = await scenario.run();
    // A fixture is only worth pinning when the turn itself is well formed.
    const turnFrames = raw.frames.filter((f) => "seq" in f);
    expectWellFormedTurn(turnFrames);
    expectStartsEnded(turnFrames);
    const fixture: FrameFixture = {
      scenario: name,
      description: scenario.description,
      recorded_by: RECORD_COMMAND,
      ...normaliseRecording(raw),
    };
    for (const f of fixture.frames) expect(ServerFrame.safeParse(f).success, JSON.stringify(f)).toBe(true);
    if (recording) {
      mkdirSync(FRAME_FIXTURES_DIR, { recursive: true });
      writeFixture(fixture);
      return;
    }
    const stored = readFixture(name);
    expect(stored, `${fixturePath(name)} is missing. ${rerun}`).toBeDefined();
    expect(
      { sent: fixture.sent, frames: fixture.frames },
      `The server's "${name}" frames differ from ${fixturePath(name)}. ${rerun}`,
    ).toEqual({ sent: stored?.sent, frames: stored?.frames });
    expect(stored?.description, `${name}'s description changed. ${rerun}`).toBe(scenario.description);
  });

  it("docs/protocol.md shows the recorded example", () => {
    const fixture = readFixture(DOC_SCENARIO);
    expect(fixture, `${fixturePath(DOC_SCENARIO)} is missing. ${rerun}`).toBeDefined();
    const block = renderForDoc(fixture as FrameFixture);
    const doc = readFileSync(PROTOCOL_DOC, "utf8");
    if (recording) {
      writeFileSync(PROTOCOL_DOC, withDocBlock(doc, block));
      return;
    }
    expect(
      docBlock(doc),
      `docs/protocol.md's recorded example is not ${fixturePath(DOC_SCENARIO)}. ${rerun}`,
    ).toBe(block);
  });

  it("every fixture on disk is a scenario that is still recorded", () => {
    const names = new Set(frameScenarios.map((s) => s.name));
    const onDisk = readdirFixtures();
    expect(
      onDisk.filter((f) => !names.has(f)),
      `stale fixtures: delete them. ${rerun}`,
    ).toEqual([]);
  });
});

/** The scenario names of the fixture files on disk. */
function readdirFixtures(): string[] {
  if (!existsSync(FRAME_FIXTURES_DIR)) return [];
  return readdirSync(FRAME_FIXTURES_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""));
}
