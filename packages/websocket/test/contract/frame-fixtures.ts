/**
 * The recorded frame fixtures on disk (packages/protocol/fixtures/frames/<scenario>.json) and the
 * recorded example in docs/protocol.md, which is rendered from one of them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Recording } from "./frame-scenarios.js";

/** Where the fixtures live: beside the protocol they pin down, for every client's tests to load. */
export const FRAME_FIXTURES_DIR = fileURLToPath(
  new URL("../../../protocol/fixtures/frames/", import.meta.url),
);
export const PROTOCOL_DOC = fileURLToPath(new URL("../../../../docs/protocol.md", import.meta.url));
/** The command that rewrites the fixtures and the document's example from the running server. */
export const RECORD_COMMAND = "pnpm fixtures:record";
/** The scenario docs/protocol.md shows as "One full turn". */
export const DOC_SCENARIO = "tool-call";

/** One fixture file: a scenario's normalised recording with a line on what it shows. */
export type FrameFixture = { scenario: string; description: string; recorded_by: string } & Recording;

export const fixturePath = (scenario: string) => `${FRAME_FIXTURES_DIR}${scenario}.json`;

/** The fixture's text exactly as the record script writes it (two-space JSON, one trailing newline). */
export function fixtureText(fixture: FrameFixture): string {
  return `${JSON.stringify(fixture, null, 2)}\n`;
}

/** The stored fixture, or undefined when it was never recorded. */
export function readFixture(scenario: string): FrameFixture | undefined {
  try {
    return JSON.parse(readFileSync(fixturePath(scenario), "utf8")) as FrameFixture;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

export function writeFixture(fixture: FrameFixture): void {
  writeFileSync(fixturePath(fixture.scenario), fixtureText(fixture));
}

const BEGIN = `<!-- recorded:${DOC_SCENARIO} (written by \`${RECORD_COMMAND}\`; do not edit by hand) -->`;
const END = "<!-- /recorded -->";

/**
 * The recording as the document shows it: one line per frame, `→` for what the client sent (placed
 * after the frame it followed), `←` for what the server sent, each the exact JSON.
 */
export function renderForDoc(recording: Recording): string {
  const lines: string[] = [];
  const sentAfter = (seq: number) =>
    recording.sent
      .filter((s) => s.after_seq === seq)
      .map(({ after_seq: _, ...s }) => `→ ${JSON.stringify(s)}`);
  lines.push(...sentAfter(0));
  for (const frame of recording.frames) {
    lines.push(`← ${JSON.stringify(frame)}`);
    if ("seq" in frame && typeof frame.seq === "number") lines.push(...sentAfter(frame.seq));
  }
  return `${BEGIN}\n\`\`\`jsonc\n${lines.join("\n")}\n\`\`\`\n${END}`;
}

/** The recorded block currently in docs/protocol.md, or undefined when its markers are missing. */
export function docBlock(doc: string): string | undefined {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END, start);
  return start < 0 || end < 0 ? undefined : doc.slice(start, end + END.length);
}

/** docs/protocol.md with its recorded block replaced; throws when the markers are missing. */
export function withDocBlock(doc: string, block: string): string {
  const current = docBlock(doc);
  if (current === undefined) throw new Error(`docs/protocol.md has no "${BEGIN}" … "${END}" block`);
  return doc.replace(current, () => block);
}
