import { startTestServer, type TestServer, upgradeStatus } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the origin check at upgrade", () => {
  it("accepts the server's own origin with an empty allowlist and refuses another", async () => {
    server = await startTestServer({ allowedOrigins: [] });
    const own = server.httpUrl;
    expect(await upgradeStatus(server.wsUrl, { origin: own })).toBe(101);
    expect(await upgradeStatus(server.wsUrl, { origin: "https://evil.example" })).toBe(403);
  });
});
