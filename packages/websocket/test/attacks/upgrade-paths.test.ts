import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { rawUpgrade } from "./raw-http.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Every spelling the attack run upgraded (101, then closed) instead of refusing.
const LOOKALIKES = ["/ws/", "/WS", "//ws", "/ws;x", "/ws/anything", "/ws%2f", "/ws%2F", "/Ws?x=1", "/ws/.."];

describe("upgrades on any path but /ws", () => {
  for (const auth of ["none", "token"] as const) {
    it(`are refused with 404 before the handshake (AUTH_MODE=${auth}), even under a wildcard route`, async () => {
      server = await startTestServer({
        auth,
        // The web app serves a wildcard: the router matched these paths there and upgraded.
        routes: async (app) => {
          app.get("/*", async () => "page");
        },
      });
      for (const path of LOOKALIKES) {
        const answer = await rawUpgrade(server.httpUrl, path);
        expect(answer.status, path).toBe(404);
        expect(JSON.parse(answer.body), path).toMatchObject({ code: "not_found" });
      }
      expect(server.app.agentwireConnections.all()).toHaveLength(0);
    });
  }

  it("still upgrades on exactly /ws, with or without a query string", async () => {
    server = await startTestServer({ auth: "none" });
    expect((await rawUpgrade(server.httpUrl, "/ws")).status).toBe(101);
    expect((await rawUpgrade(server.httpUrl, "/ws?client=web")).status).toBe(101);
    // A plain GET of /ws (no upgrade) is not a socket either.
    const plain = await fetch(`${server.httpUrl}/ws`);
    expect(plain.status).toBe(404);
  });
});
