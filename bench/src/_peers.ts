// The same workloads through the Vercel AI SDK (v6) and the OpenAI Agents SDK (0.14), scripted and instant.
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from "@openai/agents";
import { jsonSchema, simulateReadableStream, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

setTracingDisabled(true);

const usageV3 = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};
type Part = Record<string, unknown>;
const finish = (reason: "stop" | "tool-calls"): Part => ({
  type: "finish",
  usage: usageV3,
  finishReason: { unified: reason, raw: reason },
});
const textParts = (text: string): Part[] => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
];
const streamOf = (parts: Part[]) => ({
  // The parts are built untyped above; the mock takes the SDK's own stream-part union.
  stream: simulateReadableStream({ chunks: parts as never[], initialDelayInMs: null, chunkDelayInMs: null }),
});

const echoSchema = jsonSchema<{ value: string }>({
  type: "object",
  properties: { value: { type: "string" } },
  required: ["value"],
});

/** AI SDK: a loop of `iterations` tool calls, then a final answer. */
export async function aiSdkToolLoop(iterations: number): Promise<void> {
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      call += 1;
      if (call > iterations) return streamOf([...textParts("done"), finish("stop")]);
      return streamOf([
        ...textParts(`step ${call}`),
        {
          type: "tool-call",
          toolCallId: `c${call}`,
          toolName: "echo",
          input: JSON.stringify({ value: "x" }),
        },
        finish("tool-calls"),
      ]);
    },
  });
  const result = streamText({
    model,
    prompt: "hello",
    tools: {
      echo: tool({ description: "echo", inputSchema: echoSchema, execute: async ({ value }) => value }),
    },
    stopWhen: stepCountIs(iterations + 1),
  });
  for await (const _ of result.fullStream) {
  }
}

/** AI SDK: a tree of parallel subtasks as agent-as-tool (a tool whose execute runs a nested streamText). */
export async function aiSdkTree(depth: number, fanout: number): Promise<void> {
  const level = async (d: number): Promise<string> => {
    let turn = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        turn += 1;
        if (d === depth || turn > 1) return streamOf([...textParts(`answer ${d}`), finish("stop")]);
        const calls = Array.from({ length: fanout }, (_, i) => ({
          type: "tool-call",
          toolCallId: `s${d}_${i}`,
          toolName: "run_subtask",
          input: JSON.stringify({ value: `task ${i}` }),
        }));
        return streamOf([...calls, finish("tool-calls")]);
      },
    });
    const result = streamText({
      model,
      prompt: `level ${d}`,
      tools: {
        run_subtask: tool({
          description: "subtask",
          inputSchema: echoSchema,
          execute: async () => level(d + 1),
        }),
      },
      stopWhen: stepCountIs(5),
    });
    for await (const _ of result.fullStream) {
    }
    return result.text;
  };
  await level(0);
}

const functionCall = (id: string, name: string, args: unknown) => ({
  type: "function_call" as const,
  callId: id,
  name,
  arguments: JSON.stringify(args),
  status: "completed" as const,
});
const message = (text: string) => ({
  type: "message" as const,
  role: "assistant" as const,
  status: "completed" as const,
  content: [{ type: "output_text" as const, text }],
});

/** An OpenAI Agents SDK Model that plays a script; non-streamed (the runner's plain `run`). */
class ScriptedModel implements Model {
  calls = 0;
  constructor(private readonly next: (call: number, request: ModelRequest) => ModelResponse["output"]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    return {
      usage: new Usage({ requests: 1, inputTokens: 3, outputTokens: 2, totalTokens: 5 }),
      output: this.next(this.calls, request),
    };
  }
  // biome-ignore lint/correctness/useYield: the benchmark uses the non-streamed runner only.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

const agentsEcho = z.object({ value: z.string() });

/** OpenAI Agents SDK: the same tool loop. */
export async function openAiAgentsToolLoop(iterations: number): Promise<void> {
  const { tool: agentTool } = await import("@openai/agents");
  const model = new ScriptedModel((call) =>
    call > iterations
      ? [message("done")]
      : [message(`step ${call}`), functionCall(`c${call}`, "echo", { value: "x" })],
  );
  const echo = agentTool({
    name: "echo",
    description: "echo",
    parameters: agentsEcho,
    strict: true,
    execute: async (input) => (input as { value: string }).value,
  });
  const agent = new Agent({ name: "loop", instructions: "test", model, tools: [echo] });
  await run(agent, "hello", { maxTurns: iterations + 2 });
}

/** OpenAI Agents SDK: the tree as agent-as-tool (`agent.asTool`), each level its own scripted model. */
export async function openAiAgentsTree(depth: number, fanout: number): Promise<void> {
  let seq = 0;
  const build = (d: number): Agent => {
    const model = new ScriptedModel((_call, request) => {
      // One model serves every parallel run of this level: decide from the request, not a counter.
      const items = Array.isArray(request.input) ? request.input : [];
      const answered = items.some((i) =>
        ["function_call_result", "function_call_output"].includes(String((i as { type?: string }).type)),
      );
      if (d === depth || answered) return [message(`answer ${d}`)];
      return Array.from({ length: fanout }, (_, i) =>
        functionCall(`s${d}_${i}_${seq++}`, "run_subtask", { input: `task ${i}` }),
      );
    });
    const tools =
      d < depth ? [build(d + 1).asTool({ toolName: "run_subtask", toolDescription: "subtask" })] : [];
    return new Agent({ name: `level${d}`, instructions: "test", model, tools });
  };
  await run(build(0), "hello", { maxTurns: 5 });
}
