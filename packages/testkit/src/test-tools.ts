/** Small tools the chat-turn tests add to the toolbelt, each recording how it was run. */
import { defineTool, type PermissionClass, type Tool } from "@agentwire-chat/agents";
import { z } from "zod";

export type RecordingTool = Tool & { calls: unknown[] };

/** A tool that answers `<text>` (or `echo:<text>`) at once and records its arguments. */
export function echoTool(
  name = "echo",
  permissionClass: PermissionClass = "safe",
  output?: string,
): RecordingTool {
  const calls: unknown[] = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}: echoes its text.`,
    args: z.object({ text: z.string().default("") }),
    permissionClass,
    execute: async (args) => {
      calls.push(args);
      return { type: "result", output: output ?? `echo:${args.text}` };
    },
  });
  return Object.assign(tool, { calls });
}

/**
 * A tool that, once running, resolves `started` and then waits until `release` is called or the
 * turn's signal aborts it; `aborted` tells which happened.
 */
export function waitingTool(name = "wait_here"): Tool & {
  started: Promise<void>;
  release: (output: string) => void;
  aborted: () => boolean;
} {
  let markStarted = () => {};
  const started = new Promise<void>((r) => {
    markStarted = r;
  });
  let release: (output: string) => void = () => {};
  const released = new Promise<string>((r) => {
    release = r;
  });
  let sawAbort = false;
  const tool = defineTool({
    name,
    description: `Test tool ${name}: waits.`,
    args: z.object({}),
    permissionClass: "safe",
    execute: (_args, ctx) => {
      markStarted();
      return new Promise((resolve) => {
        ctx.signal.addEventListener(
          "abort",
          () => {
            sawAbort = true;
            resolve({ type: "result", output: "aborted", isError: true });
          },
          { once: true },
        );
        void released.then((output) => resolve({ type: "result", output }));
      });
    },
  });
  return Object.assign(tool, { started, release: (o: string) => release(o), aborted: () => sawAbort });
}
