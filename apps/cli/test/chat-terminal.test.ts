/**
 * `agentwire chat` on a real terminal: the CLI runs in a pseudo-terminal of 120×40 against a real
 * server with a ScriptedProvider, and every assertion reads the screen as a person would see it.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { type PtyRun, runInPty } from "./support/pty-screen.js";

let server: ChatTestServer | undefined;
const runs: PtyRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) run.kill();
  await server?.close();
  server = undefined;
});

/** `agentwire chat ...args` in a pseudo-terminal against the test server. */
function chat(...args: string[]): PtyRun {
  const run = runInPty(["chat", ...args, "--url", server?.wsUrl ?? ""]);
  runs.push(run);
  return run;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/** The instructions a subtask was started with (its first user message); undefined at the root. */
function subtaskOf(request: ProviderRequest): string | undefined {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" && first.content.startsWith("sub:")
    ? first.content
    : undefined;
}
const toolResult = (request: ProviderRequest) =>
  request.messages.findLast((m) => m.role === "tool")?.content as string | undefined;

/** Root: two parallel subtasks, then a closing line; each subtask streams its text, then holds until `before`. */
function twoSubtasks(before: Promise<void> = Promise.resolve()) {
  return (request: ProviderRequest): ScriptedStep => {
    const sub = subtaskOf(request);
    if (sub === "sub:a")
      return { text: ["Working on A.\n", "result-A line 1\nresult-A line 2"], hold: before };
    if (sub === "sub:b") return { text: "result-B", hold: before };
    if (toolResult(request) !== undefined) return { text: "Both parts are done." };
    return {
      text: "Splitting the work.",
      toolCalls: [
        { id: "sa", name: "run_subtask", args: { title: "Part A", instructions: "sub:a" } },
        { id: "sb", name: "run_subtask", args: { title: "Part B", instructions: "sub:b" } },
      ],
    };
  };
}

describe("agentwire chat in a terminal", () => {
  it("keeps a one-line answer whole on screen while the status area redraws below it", async () => {
    const release = gate();
    server = await startChatServer([{ text: ["The answer ", "is forty", "-two."], hold: release.promise }]);
    const run = chat("what is it?");
    // The answer's unfinished line stays above the spinner for several redraws (≥ 0.2 s of them).
    const during = await run.waitFor(/The answer is forty-two\.\n\S+ writing · (0\.[2-9]|[1-9]\d*\.\d) s/);
    expect(during).toMatch(SPINNER);
    release.open();
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen.split("\n")).toContain("The answer is forty-two.");
    expect(screen).toMatch(/^· tokens not reported, 1 model call, 0 tool calls$/m);
    expect(screen).not.toMatch(SPINNER);
    expect(screen).not.toContain("writing ·");
  });

  it("shows parallel subtasks side by side while they run, then each finish line with its title and time", async () => {
    const both = gate();
    server = await startChatServer(twoSubtasks(both.promise));
    const run = chat("split it");
    // Both subtasks are held: the status area lists the two at once, each with the last line of its
    // streamed text (which the server sends because the CLI offered agentwire.v1+nested).
    const running = await run.waitFor(
      (s) =>
        /^\S Part A · \d+\.\d s · “result-A line 2”$/m.test(s) &&
        /^\S Part B · \d+\.\d s · “result-B”$/m.test(s),
    );
    expect(running).toContain("Splitting the work.");
    expect(running).not.toContain("✓");
    both.open();
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen).toMatch(/^ {2}✓ Part A \(\d+ ms\)$/m);
    expect(screen).toMatch(/^ {2}✓ Part B \(\d+ ms\)$/m);
    expect(screen).toMatch(/^Both parts are done\.$/m);
    // Without --verbose the results stay folded.
    expect(screen).not.toContain("result-A");
    expect(screen).not.toMatch(SPINNER);
  });

  it("shows each subtask's result under its finish line with --verbose", async () => {
    server = await startChatServer(twoSubtasks());
    const run = chat("split it", "--verbose");
    expect(await run.exit).toBe(0);
    const lines = run.screen().split("\n");
    const a = lines.findIndex((l) => /^ {2}✓ Part A \(\d+ ms\)$/.test(l));
    const b = lines.findIndex((l) => /^ {2}✓ Part B \(\d+ ms\)$/.test(l));
    expect(a).toBeGreaterThan(-1);
    expect(b).toBeGreaterThan(-1);
    expect(lines.slice(a + 1, a + 4)).toEqual([
      "    Working on A.",
      "    result-A line 1",
      "    result-A line 2",
    ]);
    expect(lines[b + 1]).toBe("    result-B");
  });

  it("asks an ask_user question once, as text, at a still prompt, and the answer completes the turn", async () => {
    server = await startChatServer((request) =>
      toolResult(request) === undefined
        ? { toolCalls: [{ name: "ask_user", args: { question: "Which colour do you like?" } }] }
        : { text: `You chose ${toolResult(request)}.` },
    );
    const run = chat("pick for me");
    const asking = await run.waitFor(/^>$/m);
    expect(asking).toMatch(/^\? Which colour do you like\?$/m);
    expect(asking).not.toMatch(SPINNER);
    run.type("blue\r");
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen.match(/Which colour do you like\?/g)).toHaveLength(1);
    expect(screen).not.toContain('"question"');
    expect(screen).toMatch(/^> blue$/m);
    expect(screen).toMatch(/^You chose blue\.$/m);
    expect(server.provider.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: "tool", content: "blue" });
  });

  it("stops the turn on Ctrl-C at a question's prompt", async () => {
    server = await startChatServer([
      { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] },
    ]);
    const run = chat("pick for me");
    await run.waitFor(/^>$/m);
    run.type("\x03");
    expect(await run.exit).toBe(130);
    const screen = run.screen();
    expect(screen).toMatch(/^■ stopped$/m);
    expect(screen.match(/Which colour\?/g)).toHaveLength(1);
    expect(screen).not.toMatch(SPINNER);
  });

  it("times a subtask by the real wait, the user's answer included, and draws nothing while the prompt waits", async () => {
    server = await startChatServer((request) => {
      if (subtaskOf(request) === "sub:ask") {
        return toolResult(request) === undefined
          ? { toolCalls: [{ name: "ask_user", args: { question: "Size?" } }] }
          : { text: `size ${toolResult(request)}` };
      }
      return toolResult(request) === undefined
        ? {
            toolCalls: [
              { id: "s1", name: "run_subtask", args: { title: "Choose", instructions: "sub:ask" } },
            ],
          }
        : { text: "Chosen." };
    });
    const run = chat("choose");
    const asking = await run.waitFor(/^>$/m);
    // The person takes 400 ms to answer (the wait being measured, not a synchronisation): the screen
    // must not change meanwhile, no spinner under the prompt.
    await delay(400);
    expect(run.screen()).toBe(asking);
    run.type("L\r");
    expect(await run.exit).toBe(0);
    const finished = /^ {2}✓ Choose \((\d+) ms, 1 nested call\)$/m.exec(run.screen());
    expect(finished).not.toBeNull();
    expect(Number(finished?.[1])).toBeGreaterThanOrEqual(400);
  });

  it("runs an interactive session: a still prompt between turns, Ctrl-C stops a turn, Ctrl-D ends", async () => {
    server = await startChatServer((request) => {
      const last = request.messages.findLast((m) => m.role === "user")?.content;
      return last === "hold on"
        ? { text: "holding the line", hold: "until-aborted" }
        : { text: `echo: ${last}` };
    });
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("hello\r");
    await run.waitFor(/^echo: hello\n.*\n>$/m);
    run.type("hold on\r");
    await run.waitFor(/^holding the line\n\S+ writing/m);
    run.type("\x03");
    const stopped = await run.waitFor(/^■ stopped\n.*\n>$/m);
    expect(stopped).not.toMatch(SPINNER);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen).toMatch(
      /^> hello\n· thread \S+\necho: hello\n· .*tokens.*\n> hold on\nholding the line\n■ stopped$/m,
    );
    const thread = (await server.repos.threads.list("local"))[0];
    const rows = await server.repos.messages.list("local", thread?.id ?? "");
    expect(rows.at(-1)).toMatchObject({ status: "stopped", content: "holding the line" });
  });

  it("shows a subtask refused past the depth limit, by its place in the tree", async () => {
    server = await startChatServer(
      (request) => {
        if (subtaskOf(request) === "sub:outer") {
          return toolResult(request) === undefined
            ? { toolCalls: [{ name: "run_subtask", args: { title: "Inner", instructions: "sub:inner" } }] }
            : { text: "outer went on" };
        }
        return toolResult(request) === undefined
          ? { toolCalls: [{ name: "run_subtask", args: { title: "Outer", instructions: "sub:outer" } }] }
          : { text: "Finished anyway." };
      },
      { limits: { MAX_DEPTH: 1 } },
    );
    const run = chat("nest");
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    // The parent's line says something below it was refused; the refused call follows on its path.
    expect(screen).toMatch(
      /^ {2}✓ Outer \(\d+ ms, 1 nested call, 1 refused\)\n {4}⊘ Outer › Inner \(\d+ ms\): run_subtask is not available: the maximum subtask depth \(1\) is reached$/m,
    );
    expect(screen).toMatch(/^Finished anyway\.$/m);
  });
});
