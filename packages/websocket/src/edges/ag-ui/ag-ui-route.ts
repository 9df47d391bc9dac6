import { PassThrough } from "node:stream";
import type { AGUIEvent } from "@ag-ui/core";
import { AgentwireError, type ClientFrame, NotFoundError, type ServerFrame } from "@agentwire-chat/protocol";
import type { FastifyInstance } from "fastify";
import { EdgeConnection, type EdgeServer, type EdgeTransport } from "../../ws/edge-connection.js";
import { currentTurns, placement } from "../branch-turns.js";
import { AgUiProjection } from "./ag-ui-projection.js";
import { agUiRequestId, resolveAgUiThread } from "./resolve-thread.js";
import { type AgUiRunRequest, readRunInput } from "./run-input.js";

/** The one AG-UI endpoint: `HttpAgent({ url: ".../api/ag-ui" })`. */
export const AG_UI_PATH = "/api/ag-ui";

const OPEN = 1;
const CLOSED = 3;

/**
 * `POST /api/ag-ui`: one AG-UI run as Server-Sent Events. The RunAgentInput becomes one native command
 * (a `chat_message`, or the `answer` / `tool_approval_response` its `resume` gives) handled by an
 * in-process edge connection exactly as a socket's would be, and the turn's frames are projected onto
 * AG-UI events. A command the router refuses is an HTTP error with its code and stores nothing; a
 * client that goes away only stops the projection, never the turn.
 */
export async function agUiRoute(app: FastifyInstance, opts: { server: EdgeServer }) {
  const { server } = opts;
  app.post(AG_UI_PATH, async (request, reply) => {
    const run = readRunInput(request.body);
    const { userId } = request;
    const threadId = await resolveAgUiThread(server.repos, userId, run.threadId);
    const placed = await placementOf(server, userId, run, threadId);
    const command = nativeCommand(run, threadId, placed);

    const stream = new PassThrough();
    const projection = new AgUiProjection(run);
    let finished = false;
    // Frames that arrive before the command has been accepted wait for the run's first events.
    let early: ServerFrame[] | undefined = [];
    const write = (events: AGUIEvent[]) => {
      // The client may have gone while the command was handled: nothing more is written.
      if (finished) return;
      for (const event of events) stream.write(`data: ${JSON.stringify(event)}\n\n`);
      if (projection.ended) finish();
    };
    const transport: EdgeTransport = {
      get readyState() {
        return stream.writable ? OPEN : CLOSED;
      },
      get bufferedAmount() {
        return stream.writableLength + (reply.raw.writableLength ?? 0);
      },
      close: () => stream.end(),
      terminate: () => reply.raw.destroy(),
      onceDrain: (listener) => stream.once("drain", listener),
    };
    const edge = new EdgeConnection(server, {
      request,
      edge: "ag-ui",
      transport,
      onFrame: (frame) => (early ? early.push(frame) : write(projection.push(frame))),
    });
    const finish = () => {
      if (finished) return;
      finished = true;
      edge.closed();
      if (stream.writable) stream.end();
    };
    // The client went away: stop projecting; the turn belongs to the thread and runs on.
    reply.raw.once("close", finish);

    const refused = await edge.command(command);
    if (refused) {
      finish();
      throw new AgentwireError(refused.code, refused.message);
    }
    const nativeThread =
      threadId ?? (await server.repos.turns.findByRequestId(userId, agUiRequestId(run.threadId)))?.threadId;
    const scratchpad =
      nativeThread === undefined ? [] : await server.repos.scratchpad.list(userId, nativeThread);
    void reply
      .header("content-type", "text/event-stream; charset=utf-8")
      .header("cache-control", "no-cache, no-transform")
      .header("x-accel-buffering", "no")
      .send(stream);
    const pending = early;
    early = undefined;
    write(projection.start(nativeThread ?? "", scratchpad));
    // A dismissed question stops the waiting turn, which this connection does not watch: the run ends here.
    if (run.intent.kind === "stop") write(projection.cancel());
    for (const frame of pending) write(projection.push(frame));
    return reply;
  });
}

/**
 * Where a run's new message goes on the thread: when the client's earlier user messages are the
 * stored branch's first ones, word for word, but fewer, the client's conversation diverged there (it
 * edited the next one): the message is an edit of the stored turn at that place. Otherwise it
 * follows the current leaf.
 */
async function placementOf(
  server: EdgeServer,
  userId: string,
  run: AgUiRunRequest,
  threadId: string | undefined,
): Promise<{ parent_message_id?: string | null }> {
  const { intent } = run;
  if (intent.kind !== "message" || intent.history === undefined || threadId === undefined) return {};
  const { history } = intent;
  const turns = await currentTurns(server.repos, userId, threadId);
  const aligned = history.every((text, i) => turns[i]?.text === text);
  return placement(turns, aligned ? history.length : undefined);
}

/** The native command one run stands for; answering needs the thread its interrupt is on. */
function nativeCommand(
  run: AgUiRunRequest,
  threadId: string | undefined,
  placed: { parent_message_id?: string | null },
): ClientFrame {
  const { intent } = run;
  switch (intent.kind) {
    case "message":
      return {
        command: "chat_message",
        data: {
          content: intent.content,
          ...(threadId !== undefined && { thread_id: threadId, ...placed }),
        },
        request_id: agUiRequestId(run.threadId),
      };
    case "approval":
      return {
        command: "tool_approval_response",
        data: { approval_id: intent.approvalId, decision: intent.decision },
      };
    case "answer":
      if (threadId === undefined) throw new NotFoundError("thread");
      return {
        command: "answer",
        data: { thread_id: threadId, tool_call_id: intent.toolCallId, answer: intent.answer },
      };
    case "stop":
      if (threadId === undefined) throw new NotFoundError("thread");
      return { command: "stop", data: { thread_id: threadId } };
  }
}
