import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterAll, describe, expect, it } from "vitest";
import { npmInstall, packClients } from "./support/pack-install.js";

const run = promisify(execFile);
const TSC = new URL("../../../node_modules/typescript/bin/tsc", import.meta.url).pathname;

let server: ChatTestServer | undefined;
let dir: string | undefined;
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What an app developer gets: the packed tarballs installed with npm, outside the workspace. */
describe("the packed packages", { timeout: 240_000 }, () => {
  it("protocol, client and react install with npm from their tarballs, typecheck as an app, and run a turn against a real server", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-packed-"));
    const { protocol, client, react } = await packClients(dir);
    await npmInstall(
      dir,
      [protocol, client, react],
      ["ws@^8.21.1", "react@^19.0.0", "@types/ws@^8.18.1", "@types/node@^20.19.0", "@types/react@^19.0.0"],
    );
    const installed = join(dir, "node_modules/@agentwire-chat");
    // Only what `files` names: the build and the README, no sources or tests.
    expect(readdirSync(join(installed, "client")).sort()).toEqual(["README.md", "dist", "package.json"]);
    expect(readdirSync(join(installed, "protocol")).sort()).toEqual(["README.md", "dist", "package.json"]);
    expect(readdirSync(join(installed, "react")).sort()).toEqual(["README.md", "dist", "package.json"]);
    // One protocol: the client's dependency is the tarball's, not a second copy.
    expect(existsSync(join(installed, "client/node_modules"))).toBe(false);
    expect(existsSync(join(installed, "react/node_modules"))).toBe(false);

    writeFileSync(
      join(dir, "app.ts"),
      `import { createClient, type TurnEnd } from "@agentwire-chat/client";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { PROTOCOL_V1 } from "@agentwire-chat/protocol/subprotocols";
import { ChatSession, type ChatStatus } from "@agentwire-chat/react";
import WebSocket from "ws";

const client = createClient({ url: process.argv[2] as string, WebSocket });
const turn = client.send({ content: "Say hello" });
const types: ServerFrame["type"][] = [];
for await (const frame of turn.frames) types.push(frame.type);
const end: TurnEnd = await turn.done;
// The hooks' state, without React: the installed react package resumes the finished turn over its rows.
const session = new ChatSession(client, await turn.threadId);
session.attach();
const settled = await new Promise<ChatStatus>((resolve) => {
  session.subscribe(() => {
    const { status } = session.getState();
    if (status !== "loading" && status !== "running") resolve(status);
  });
});
const rows = session.getState().messages.map((m) => m.role);
console.log(JSON.stringify({ status: end.status, text: await turn.text(), types, protocol: PROTOCOL_V1, settled, rows }));
client.close();
`,
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          outDir: "out",
          types: ["node"],
        },
        files: ["app.ts"],
      }),
    );
    // The published types resolve through `exports` for a strict NodeNext app.
    await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir });

    server = await startChatServer([{ text: ["Hello ", "from a tarball."] }]);
    const { stdout } = await run(process.execPath, [join(dir, "out/app.js"), server.wsUrl], { cwd: dir });
    const result = JSON.parse(stdout) as {
      status: string;
      text: string;
      types: string[];
      protocol: string;
      settled: string;
      rows: string[];
    };
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Hello from a tarball.");
    expect(result.types[0]).toBe("thread");
    expect(result.types.at(-1)).toBe("chunk");
    expect(result.protocol).toBe("agentwire.v1");
    expect(result.settled).toBe("complete");
    expect(result.rows).toEqual(["user", "assistant"]);
  });
});
