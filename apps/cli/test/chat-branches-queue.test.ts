/**
 * Issue 38 in `agentwire chat` on a real terminal (120×40 pseudo-terminal, real server, scripted
 * model): a line typed while a turn runs is queued and runs after it; `/retry` answers the last
 * message again and `/edit` replaces it, each as a new branch that `/branches` lists.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
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

function chat(...args: string[]): PtyRun {
  const run = runInPty(["chat", ...args, "--url", server?.wsUrl ?? ""]);
  runs.push(run);
  return run;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const lastUser = (request: ProviderRequest) =>
  request.messages.findLast((m) => m.role === "user")?.content as string | undefined;
const userTexts = (request: ProviderRequest) =>
  request.messages.filter((m) => m.role === "user").map((m) => m.content);

describe("agentwire chat: queue, /retry, /edit, /branches", () => {
  it("queues a line typed while a turn runs, shows it as queued, and runs it after the turn", async () => {
    const release = gate();
    server = await startChatServer((request) =>
      lastUser(request) === "slow one"
        ? { text: "slowly answering", hold: release.promise }
        : { text: `echo: ${lastUser(request)}` },
    );
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("slow one\r");
    await run.waitFor(/^slowly answering\n\S+ writing/m);
    run.type("next please\r");
    const queued = await run.waitFor(/^queued \(1\): next please$/m);
    // Under the running turn's status, not answered yet.
    expect(queued).toMatch(/^\S+ writing · \d+\.\d s\nqueued \(1\): next please$/m);
    expect(queued).not.toContain("echo: next please");
    release.open();
    await run.waitFor(/^echo: next please\n.*tokens.*\n>$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    const screen = run.screen();
    expect(screen).toMatch(/^slowly answering\n· .*tokens.*\n> next please\necho: next please$/m);
    expect(screen).not.toContain("queued (1)");
    expect(screen).not.toMatch(SPINNER);
    // One thread: the queued message followed the first answer.
    const request = server.provider.requests.at(-1) as ProviderRequest;
    expect(userTexts(request)).toEqual(["slow one", "next please"]);
  });

  it("Ctrl-C stops the running turn and the queued message starts", async () => {
    server = await startChatServer((request) =>
      lastUser(request) === "hold on"
        ? { text: "holding the line", hold: "until-aborted" }
        : { text: `echo: ${lastUser(request)}` },
    );
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("hold on\r");
    await run.waitFor(/^holding the line\n\S+ writing/m);
    run.type("after that\r");
    await run.waitFor(/^queued \(1\): after that$/m);
    run.type("\x03");
    await run.waitFor(/^■ stopped\n(.*\n)?> after that\necho: after that\n.*tokens.*\n>$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    expect(run.screen()).not.toContain("queued (1)");
  });

  it("/retry answers the last message again, and /branches lists both answers", async () => {
    let answers = 0;
    server = await startChatServer((request) => ({ text: `answer ${++answers} to ${lastUser(request)}` }));
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("hello\r");
    await run.waitFor(/^answer 1 to hello\n.*tokens.*\n>$/m);
    run.type("/retry\r");
    await run.waitFor(/^answer 2 to hello\n.*tokens.*\n>$/m);
    // The model saw the same conversation again, without the first answer.
    expect(server.provider.requests.at(-1)?.messages.map((m) => m.role)).toEqual(
      server.provider.requests[0]?.messages.map((m) => m.role),
    );
    run.type("/branches\r");
    const listed = await run.waitFor(
      /^· answer: 2 versions\n {4}1\. answer 1 to hello\n {2}\* 2\. answer 2 to hello\n>$/m,
    );
    expect(listed).toMatch(/^· message: 1 version\n {2}\* 1\. hello$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
  });

  it("/edit sends new text in place of the last message, on a branch without the old one", async () => {
    server = await startChatServer((request) => ({ text: `echo: ${lastUser(request)}` }));
    const run = chat();
    await run.waitFor(/^>$/m);
    run.type("first\r");
    await run.waitFor(/^echo: first\n.*tokens.*\n>$/m);
    run.type("secnod\r");
    await run.waitFor(/^echo: secnod\n.*tokens.*\n>$/m);
    run.type("/edit second\r");
    await run.waitFor(/^echo: second\n.*tokens.*\n>$/m);
    // The edited turn follows the first answer: the typo is on the other branch.
    expect(userTexts(server.provider.requests.at(-1) as ProviderRequest)).toEqual(["first", "second"]);
    run.type("/branches\r");
    const listed = await run.waitFor(/^· answer: 1 version\n {2}\* 1\. echo: second\n>$/m);
    expect(listed).toMatch(/^· message: 2 versions\n {4}1\. secnod\n {2}\* 2\. second$/m);
    run.type("\x04");
    expect(await run.exit).toBe(0);
  });
});
