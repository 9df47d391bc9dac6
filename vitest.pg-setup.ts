import type { TestProject } from "vitest/node";
import { startPostgres, type TestPostgres } from "./packages/testkit/src/postgres-server.js";

let server: TestPostgres | undefined;

/** One throwaway Postgres for an AGENTWIRE_TEST_DB=postgres run; each test server makes its own database in it. */
export async function setup(project: TestProject) {
  server = await startPostgres();
  project.provide("postgresUrl", server.url);
}

export async function teardown() {
  await server?.stop();
}
