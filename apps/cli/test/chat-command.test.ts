import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { freePort } from "@agentwire-chat/testkit/free-port";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { createChatServices } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";
import { runCliProcess } from "./support/cli-process.js";

let server: ChatTestServer | undefined;
let noProvider: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await noProvider?.close();
  server = undefined;
  noProvider = undefined;
});

const cli = (args: string[]) => runCliProcess(["chat", ...args]);

describe("agentwire chat", () => {
  it("writes plain text into a pipe: subtasks folded, the question once, and --agent deprecated", async () => {
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
    // Piped: plain text only (no status area, no escape sequence), the question once, the answer echoed.
    expect(
      run
        .out()
        .replace(/thread \S+/, "thread ID")
        .replace(/\d+ ms/, "N ms"),
    ).toBe(
      [
        "· thread ID",
        "Delegating.",
        "  ▸ Sub",
        "? colour?",
        "> blue",
        "  ✓ Sub (N ms, 1 nested call)",
        " All done.",
        "· tokens not reported, 4 model calls, 1 tool call, 1 subtask",
        "",
      ].join("\n"),
    );
    expect(run.err()).toContain("--agent is deprecated");
    const answered = server.provider.requests.find((r) =>
      r.messages.some((m) => m.role === "tool" && m.content === "blue"),
    );
    expect(answered).toBeDefined();
  });

  it("names which of parallel subtasks asks each question", async () => {
    server = await startChatServer((request) => {
      const first = request.messages[0];
      const task = first?.role === "user" ? first.content : "";
      const answered = request.messages.at(-1)?.role === "tool";
      if (task === "sub:a")
        return answered
          ? { text: "A ok" }
          : { toolCalls: [{ name: "ask_user", args: { question: "Colour?" } }] };
      if (task === "sub:b")
        return answered
          ? { text: "B ok" }
          : { toolCalls: [{ name: "ask_user", args: { question: "Size?" } }] };
      return answered
        ? { text: "Both done." }
        : {
            toolCalls: [
              { id: "sa", name: "run_subtask", args: { title: "Part A", instructions: "sub:a" } },
              { id: "sb", name: "run_subtask", args: { title: "Part B", instructions: "sub:b" } },
            ],
          };
    });
    const run = cli(["two things", "--url", server.wsUrl]);
    // The two ask in either order; each prompt is answered as it comes.
    await run.printed(" asks: ");
    run.proc.stdin.write("first\n");
    await until(() => (run.out().match(/ asks: /g) ?? []).length === 2 || undefined, "the second question");
    run.proc.stdin.write("second\n");
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain("Both done.");
    expect(run.out()).toMatch(/^\? Part A asks: Colour\?$/m);
    expect(run.out()).toMatch(/^\? Part B asks: Size\?$/m);
  });

  it("leaves a turn whose question finds the input already ended waiting, and says how to answer it", async () => {
    server = await startChatServer([{ toolCalls: [{ name: "ask_user", args: { question: "colour?" } }] }]);
    const run = cli(["pick", "--url", server.wsUrl]);
    run.proc.stdin.end();
    expect(await run.exit).toBe(1);
    const thread = (await server.repos.threads.list("local"))[0];
    expect(run.out()).toContain(
      `? colour?\n> \n· the turn waits for your answer; to give it: agentwire chat --thread ${thread?.id}\n`,
    );
    expect(run.out()).not.toContain("■ stopped");
  });

  it("sends stop on Ctrl-C and exits 130 when the turn ends, without claiming 0 tokens", async () => {
    server = await startChatServer([{ text: "thinking hard", hold: "until-aborted" }]);
    const run = cli(["long job", "--url", server.wsUrl]);
    await new Promise<void>((resolve) =>
      run.proc.stdout.on("data", () => run.out().includes("thinking hard") && resolve()),
    );
    run.proc.kill("SIGINT");
    // Stopped is not answered: the exit status says so, as a shell does for SIGINT.
    expect(await run.exit).toBe(130);
    expect(run.out()).toContain("■ stopped");
    // The provider never reported the cut stream's tokens: no "0 out" after text streamed.
    expect(run.out()).toContain("· tokens not reported (stopped mid-answer), 1 model call, 0 tool calls\n");
    const thread = (await server.repos.threads.list("local"))[0];
    const rows = await server.repos.messages.list("local", thread?.id ?? "");
    expect(rows.at(-1)).toMatchObject({ status: "stopped", content: "thinking hard" });
  });

  it("exits 1 with a readable message when the server refuses", async () => {
    server = await startChatServer([], { auth: "token" });
    const run = cli(["hi", "--url", server.wsUrl]);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain("HTTP 401 (it wants an API token: --token or AGENTWIRE_TOKEN)");
  });

  it("connects with --token and takes an http:// address for the server", async () => {
    server = await startChatServer([{ text: "hello there" }], { auth: "token" });
    const token = await server.createToken("ann");
    const run = cli(["hi", "--url", server.httpUrl, "--token", token]);
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain("hello there");
    expect(run.err()).toBe("");
    expect(await server.repos.threads.list("ann")).toHaveLength(1);
  });

  it("says before the first message that the server has no provider, and which variables set one", async () => {
    noProvider = await startTestServer({
      services: { chat: createChatServices({ providers: createProviderRegistry({}) }) },
    });
    const run = cli(["hi", "--url", noProvider.wsUrl]);
    expect(await run.exit).toBe(1);
    expect(run.err()).toBe(
      "agentwire chat: no provider configured on the server: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_COMPAT_ENDPOINTS\n",
    );
    expect(run.out()).toBe("");
    // Nothing was sent: no thread exists.
    expect(await noProvider.repos.threads.list("local")).toEqual([]);
  });

  it("names the flags and variables when the server has no default provider, or the provider no default model", async () => {
    const provider = new ScriptedProvider([{ text: "picked by hand" }]);
    // A provider without a default model, on a server without DEFAULT_PROVIDER.
    noProvider = await startTestServer({
      services: {
        chat: createChatServices({ providers: createProviderRegistry({}, { extraProviders: [provider] }) }),
      },
    });
    const noDefault = cli(["hi", "--url", noProvider.wsUrl]);
    expect(await noDefault.exit).toBe(1);
    expect(noDefault.err()).toBe(
      "agentwire chat: the server has no default provider: pass --provider P (it has: scripted), or set DEFAULT_PROVIDER (and DEFAULT_MODEL) on the server\n",
    );
    const noModel = cli(["hi", "--provider", "scripted", "--url", noProvider.wsUrl]);
    expect(await noModel.exit).toBe(1);
    expect(noModel.err()).toMatch(
      /^agentwire chat: provider "scripted" has no default model: pass --model M( \(it lists: .*\))?, or set SCRIPTED_MODEL on the server\n$/,
    );
    expect(provider.calls).toBe(0);
    // With both named, the same server answers.
    const named = cli(["hi", "--provider", "scripted", "--model", "scripted-1", "--url", noProvider.wsUrl]);
    expect(await named.exit).toBe(0);
    expect(named.out()).toContain("picked by hand");
  });

  it("names the providers the server has when --provider asks for another", async () => {
    server = await startChatServer([]);
    const run = cli(["hi", "--provider", "openai", "--url", server.wsUrl]);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain('provider "openai" is not configured on the server; it has: scripted');
    expect(server.provider.calls).toBe(0);
  });

  it("says where the socket is when --url names another path", async () => {
    server = await startChatServer([]);
    const wrong = server.wsUrl.replace(/\/ws$/, "/socket");
    const run = cli(["hi", "--url", wrong]);
    expect(await run.exit).toBe(1);
    const host = new URL(server.wsUrl).host;
    expect(run.err()).toBe(
      `agentwire chat: server refused: HTTP 404 (no socket at that path: the server's socket is at /ws, e.g. --url ws://${host}/ws)\n`,
    );
    expect(server.provider.calls).toBe(0);
  });

  it("explains a server that is not running", async () => {
    const port = await freePort();
    const run = cli(["hi", "--url", `ws://127.0.0.1:${port}/ws`]);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain(`nothing answers at 127.0.0.1:${port}: start the server (pnpm start)`);
  });
});
