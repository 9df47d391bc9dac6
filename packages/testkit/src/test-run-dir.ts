import { inject } from "vitest";

/**
 * The folder of this test run (vitest.global-setup.ts makes it and removes it at the end): where
 * what every test file would otherwise build for itself is built once, for all workers.
 */
export function testRunDir(): string {
  const dir = inject("testRunDir");
  if (!dir)
    throw new Error("no test run folder: run vitest with the repository's config (vitest.global-setup.ts)");
  return dir;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's own temporary folder (vitest.global-setup.ts). */
    testRunDir: string | undefined;
  }
}
