import {
  type ChatTestServer,
  expectWellFormedTurn,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { ToolPolicies } from "../../src/index.js";
import { injectedModel, injectedTurn, toolEnds } from "../tools/tool-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const calls = [
  { name: "peek_secret", args: { text: "s" } },
  { name: "fetch_page", args: { text: "n" } },
];

/** Which of the two tools the user's turn offered and ran without error. */
async function usable(s: ChatTestServer, client: TestClient): Promise<string[]> {
  const before = s.provider.requests.length;
  const frames = await injectedTurn(client, calls);
  expectWellFormedTurn(frames);
  const offered = s.provider.requests[before]?.tools.map((t) => t.name) ?? [];
  const ran = toolEnds(frames)
    .filter((e) => e.is_error !== true)
    .map((e) => e.name);
  // A tool left out of the toolbelt is also refused when the model calls it by name.
  expect(ran).toEqual(offered.filter((n) => n === "peek_secret" || n === "fetch_page"));
  return ran;
}

describe("TOOL_POLICY_FILE through the socket: classes per user and group", () => {
  it("secrets on for one user, network off for a group, the defaults for everyone else; replace takes effect on the next turn", async () => {
    const policies = new ToolPolicies(
      {},
      {
        groups: { contractors: { members: ["bob"], classes: { network: "off" } } },
        users: { alice: { classes: { secrets: "allow" } } },
      },
    );
    server = await startChatServer(injectedModel(), {
      auth: "token",
      policies,
      extraTools: [echoTool("peek_secret", "secrets"), echoTool("fetch_page", "network")],
    });
    const s = server;
    const alice = await s.connect({ token: await s.createToken("alice") });
    const bob = await s.connect({ token: await s.createToken("bob") });
    const dave = await s.connect({ token: await s.createToken("dave") });
    expect(await usable(s, alice)).toEqual(["peek_secret", "fetch_page"]);
    expect(await usable(s, bob)).toEqual([]);
    expect(await usable(s, dave)).toEqual(["fetch_page"]);

    // What SIGHUP does with a new file: bob leaves the group.
    policies.replace({ users: { alice: { classes: { secrets: "allow" } } } });
    expect(await usable(s, bob)).toEqual(["fetch_page"]);
    expect(await usable(s, alice)).toEqual(["peek_secret", "fetch_page"]);
  });
});
