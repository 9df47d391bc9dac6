/**
 * `agentwire chat` once the terminal is full: the screen scrolls under the live area, and every line the
 * CLI wrote for good (and every line before it) stays, in order. A 120×40 pseudo-terminal, filled by
 * `seq 1 50` before the CLI starts, read back through a headless xterm (scrollback and screen).
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { type PtyRun, runInPty } from "./support/pty-screen.js";

let server: ChatTestServer | undefined;
const runs: PtyRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) run.kill();
  await server?.close();
  server = undefined;
});

const FILL = Array.from({ length: 50 }, (_, i) => String(i + 1));
const lastUser = (request: ProviderRequest) =>
  request.messages.findLast((m) => m.role === "user")?.content as string | undefined;
const hasToolResult = (request: ProviderRequest) => request.messages.some((m) => m.role === "tool");

const WORDS = "words that wrap across the terminal's width ";

/**
 * `count` answer lines, every third a paragraph three rows wide, then `extra`; each streamed in pieces
 * of 16 characters, so the live area holds an unfinished line that grows from one row to several.
 */
function answerLines(
  prefix: string,
  count: number,
  extra: string[] = [],
): { chunks: string[]; lines: string[] } {
  const lines = Array.from({ length: count }, (_, i) =>
    i % 3 === 2
      ? `${prefix} paragraph ${i + 1}: ${WORDS.repeat(7).trim()}`
      : `${prefix} line ${i + 1} of a long answer`,
  ).concat(extra);
  const chunks = lines.flatMap((line) => {
    const text = `${line}\n`;
    return Array.from({ length: Math.ceil(text.length / 16) }, (_, k) => text.slice(k * 16, k * 16 + 16));
  });
  return { chunks, lines };
}

/** Each line of `screen` matched, in order and with none left over, by `expected` (a string is the whole line). */
function expectLines(screen: string, expected: (string | RegExp)[]): void {
  const lines = screen.split("\n");
  const shown = lines.map((line, i) => {
    const want = expected[i];
    const ok = typeof want === "string" ? line === want : want?.test(line) === true;
    const cut = (text: string) => (text.length > 100 ? `${text.slice(0, 99)}…` : text);
    return `${ok ? " " : "✗"} ${cut(line)}${ok ? "" : `   (expected ${cut(String(want))})`}`;
  });
  const wrong = shown.filter((l) => l.startsWith("✗")).length + Math.abs(lines.length - expected.length);
  expect(wrong, `screen (scrollback and screen), ✗ marks a wrong line:\n${shown.join("\n")}`).toBe(0);
}

describe("agentwire chat on a full terminal", () => {
  it("keeps every line written above a long answer, its prompt and thread line included", async () => {
    const before = answerLines("before", 45);
    // A paragraph taller than the screen (its head leaves the live area while it streams), and one
    // of wide characters (two columns each: a row holds 60).
    const after = answerLines("after", 20, [
      `tall: ${WORDS.repeat(130).trim()}`,
      `wide: ${"漢字かな".repeat(70)}`,
    ]);
    server = await startChatServer((request): ScriptedStep => {
      if (lastUser(request)?.startsWith("sub:")) return { text: ["part ", `${lastUser(request)} done`] };
      if (lastUser(request) === "first") return { text: ["a short ", "answer\n", "in two lines"] };
      if (hasToolResult(request)) return { text: after.chunks };
      return {
        text: before.chunks,
        toolCalls: [
          { id: "sa", name: "run_subtask", args: { title: "Part A", instructions: "sub:a" } },
          { id: "sb", name: "run_subtask", args: { title: "Part B", instructions: "sub:b" } },
        ],
      };
    });
    const run = runInPty(["chat", "--url", server.wsUrl], "seq 1 50");
    runs.push(run);
    await run.waitFor(/^50\n>$/m);
    run.type("first\r");
    await run.waitFor(/^in two lines\n.*\n>$/m);
    run.type("long\r");
    await run.waitFor(/[漢字かな]\n· .*\n>$/, 30_000);
    run.type("\x04");
    expect(await run.exit).toBe(0);
    expectLines(run.lines(), [
      ...FILL,
      "> first",
      /^· thread \S+$/,
      "a short answer",
      "in two lines",
      /^· /,
      "> long",
      ...before.lines,
      /^ {2}✓ Part [AB] \(\d+ ms\)$/,
      /^ {2}✓ Part [AB] \(\d+ ms\)$/,
      ...after.lines,
      /^· /,
      ">",
    ]);
  }, 60_000);
});
