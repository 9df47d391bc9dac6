import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Local copies of the recorded provider streams, so the tests need nothing outside the repo. */
export const LOCAL_FIXTURES_DIR = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** Reads a fixture from the local copy. */
export function readFixture(name: string): string {
  return readFileSync(`${LOCAL_FIXTURES_DIR}${name}`, "utf8");
}

/** The `data:` JSON payloads of an SSE file (skipping `[DONE]`). */
export function dataLines(sseText: string): Record<string, unknown>[] {
  return sseText
    .split("\n")
    .filter((l) => l.startsWith("data: ") && !l.startsWith("data: [DONE]"))
    .map((l) => JSON.parse(l.slice("data: ".length)) as Record<string, unknown>);
}
