import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatTestServer, startChatServer } from "../../../packages/websocket/test/chat/chat-harness.js";

const root = join(import.meta.dirname, "../../..");
let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function cli(args: string[]) {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire/source", "apps/cli/src/main.ts", "chat", ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? "" }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => {
    stdout += d;
  });
  proc.stderr.on("data", (d) => {
    stderr += d;
  });
  const exit = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  return { proc, exit, out: () => stdout, err: () => stderr };
}

describe("agentwire chat", () => {
  it("asks one question, renders subtasks collapsed, and warns that --agent is deprecated", async () => {
    server = await startChatServer((request) => {
      const first = request.messages[0];
      const task = first?.role === "user" ? first.content : "";
      if (task === "sub")
        return request.messages.length === 1
          ? { toolCalls: [{ name: "ask_user", args: { question: "colour?" } }] }
          : { text: "child ok" };
      return request.messages.length === 1
        ? {
            text: "Delegating.",
            toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "Sub", instructions: "sub" } }],
          }
        : { text: " All done." };
    });
    const run = cli(["what now?", "--agent", "--url", server.wsUrl]);
    // The subtask asks a question: the CLI prompts on stdout and we answer on stdin.
    await new Promise<void>((resolve) =>
      run.proc.stdout.on("data", () => run.out().includes("? colour?") && resolve()),
    );
    run.proc.stdin.write("blue\n");
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain("Delegating.");
    expect(run.out()).toContain("▸ run_subtask Sub");
    expect(run.out()).toMatch(/✓ run_subtask \(\d+ ms, 1 nested call\)/);
    expect(run.out()).toContain("All done.");
    expect(run.out()).not.toContain("child ok");
    expect(run.err()).toContain("--agent is deprecated");
    const answered = server.provider.requests.find((r) =>
      r.messages.some((m) => m.role === "tool" && m.content === "blue"),
    );
    expect(answered).toBeDefined();
  });

  it("sends stop on Ctrl-C and exits when the turn ends", async () => {
    server = await startChatServer([{ text: "thinking hard", hold: "until-aborted" }]);
    const run = cli(["long job", "--url", server.wsUrl]);
    await new Promise<void>((resolve) =>
      run.proc.stdout.on("data", () => run.out().includes("thinking hard") && resolve()),
    );
    run.proc.kill("SIGINT");
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain("■ stopped");
    const thread = (await server.repos.threads.list("local"))[0];
    const rows = await server.repos.messages.list("local", thread?.id ?? "");
    expect(rows.at(-1)).toMatchObject({ status: "stopped", content: "thinking hard" });
  });

  it("exits 1 with a readable message when the server refuses", async () => {
    server = await startChatServer([], { auth: "token" });
    const run = cli(["hi", "--url", server.wsUrl]);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain("HTTP 401");
  });
});
