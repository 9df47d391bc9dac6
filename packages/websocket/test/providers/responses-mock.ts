/**
 * A local OpenAI Responses server speaking the real SSE format (an `event:` line per event, no [DONE]),
 * scripted per request, and the chat services whose `openai` provider is the real `openai` client on
 * the Responses API pointed at it: what the server-level Responses tests and their child process run.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createProviderRegistry } from "@agentwire-chat/agents";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { type ChatServices, createChatServices } from "../../src/index.js";

/** One Responses stream event: its `type` and whatever that kind carries. */
export type RsEvent = { type: string; [key: string]: unknown };

/** What the mock streams for one request: its events, and whether to hold the body open after them. */
export type RsAnswer = { events: RsEvent[]; hold?: boolean };

/** The request body fields the tests read. */
export type RsBody = { model: string; store?: boolean; include?: string[]; input: RsItem[] };
export type RsItem = { type?: string; role?: string; [key: string]: unknown };

export type ResponsesMock = {
  url: string;
  /** Every request body, in arrival order. */
  bodies: RsBody[];
  close(): Promise<void>;
};

/** Starts the mock; `answer` scripts each request from its body (the n-th is 1-based). */
export async function startResponsesMock(
  answer: (body: RsBody, n: number) => RsAnswer,
): Promise<ResponsesMock> {
  const bodies: RsBody[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `mock: no route ${req.url}`, type: "not_found" } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as RsBody;
    bodies.push(body);
    const { events, hold } = answer(body, bodies.length);
    res.writeHead(200, { "content-type": "text/event-stream", "x-request-id": `req_${bodies.length}` });
    const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    if (hold) res.write(sse);
    else res.end(sse);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A reasoning item with one summary part, streamed and then done with its encrypted content. */
export function reasoning(id: string, summary: string, encrypted: string): RsEvent[] {
  return [
    { type: "response.output_item.added", item: { id, type: "reasoning", summary: [] } },
    { type: "response.reasoning_summary_text.delta", item_id: id, summary_index: 0, delta: summary },
    {
      type: "response.output_item.done",
      item: {
        id,
        type: "reasoning",
        encrypted_content: encrypted,
        summary: [{ type: "summary_text", text: summary }],
      },
    },
  ];
}

/** Output text deltas. */
export function text(...deltas: string[]): RsEvent[] {
  return deltas.map((delta) => ({ type: "response.output_text.delta", item_id: "msg_1", delta }));
}

/** A whole function call item. */
export function call(callId: string, name: string, args: object): RsEvent[] {
  const item = {
    id: `fc_${callId}`,
    type: "function_call",
    call_id: callId,
    name,
    arguments: JSON.stringify(args),
  };
  return [
    { type: "response.output_item.added", item: { ...item, arguments: "" } },
    { type: "response.function_call_arguments.delta", item_id: item.id, delta: item.arguments },
    { type: "response.output_item.done", item },
  ];
}

/** The end of a response, with usage. */
export const completed: RsEvent = {
  type: "response.completed",
  response: { status: "completed", usage: { input_tokens: 50, output_tokens: 10 } },
};

/** Chat services whose only provider is `openai` on the Responses API at `baseURL` (model gpt-5), with echo. */
export function responsesChat(baseURL: string): ChatServices {
  const providers = createProviderRegistry({
    openai: {
      apiKey: "sk-test-responses-0123456789",
      baseURL: `${baseURL}/v1`,
      api: "responses",
      defaultModel: "gpt-5",
    },
    maxRetries: 0,
  });
  const base = createChatServices({ providers });
  return createChatServices({
    providers,
    defaults: { provider: "openai", model: "gpt-5" },
    serverTools: async (scope) => [...(await base.serverTools(scope)), echoTool()],
  });
}
