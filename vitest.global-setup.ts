import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

let dir: string | undefined;

/** A folder for the whole run, shared by its workers: fixtures built once go there (testkit's testRunDir). */
export function setup(project: TestProject) {
  dir = mkdtempSync(join(tmpdir(), "agentwire-test-run-"));
  project.provide("testRunDir", dir);
}

export function teardown() {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
