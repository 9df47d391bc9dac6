import {
  chatResumedStatusFromWire,
  type ErrorFrame,
  type ServerFrame,
  type TurnStatus,
} from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import { titleOf } from "../../turns/thread-title.js";
import type { EdgeConnection } from "../../ws/edge-connection.js";
import { lastUserText, nodesOf, pendingAnswers } from "./client-messages.js";
import type { SendRequest, TransportRequest } from "./transport-request.js";
import { TurnProjection } from "./turn-projection.js";
import type { TransportResponse, UiChunk } from "./ui-chunks.js";

/** A response following one thread's turn on this socket. */
interface Stream {
  requestId: string;
  projection: TurnProjection;
  sequence: number;
  /** A resume's replay, held until `chat_resumed` says whether the turn is active. */
  replay?: UiChunk[];
}

export interface AiSdkSessionOptions {
  edge: Pick<EdgeConnection, "command" | "userId" | "logger">;
  repos: Repositories;
  /** Writes one transport frame to the socket. */
  send(response: TransportResponse): void;
}

/**
 * One `/ws/ai-sdk` socket: the transport's `send`, `resume` and `abort` become native commands on the
 * edge connection, and the frames of each thread it follows are projected onto the response that
 * asked for them, with a per-response `sequence` from 0.
 */
export class AiSdkSession {
  private readonly streams = new Map<string, Stream>();
  private readonly threadOf = new Map<string, string>();

  constructor(private readonly opts: AiSdkSessionOptions) {}

  /** Handles one validated client frame; answers on its stream, never throws. */
  async handle(request: TransportRequest): Promise<void> {
    try {
      if (request.type === "abort") return await this.abort(request.requestId);
      if (request.type === "resume") return await this.resume(request.requestId, request.id);
      return await this.sendMessages(request);
    } catch (error) {
      this.opts.edge.logger.error({ err: error }, "ai-sdk request failed");
      this.fail(request.requestId, "internal: the request failed");
    }
  }

  /** Takes one native frame of the edge connection. */
  onFrame(frame: ServerFrame): void {
    if (frame.type === "chat_resumed") {
      this.resumed(frame.thread_id, chatResumedStatusFromWire(frame.status));
      return;
    }
    const threadId = "thread_id" in frame ? frame.thread_id : undefined;
    if (threadId === undefined) return;
    const stream = this.streams.get(threadId);
    if (!stream) return;
    const { chunks, done, waiting } = stream.projection.push(frame);
    if (stream.replay) {
      stream.replay.push(...chunks);
      return;
    }
    this.write(stream, chunks);
    if (done) this.end(threadId, stream);
    else if (waiting) {
      this.write(stream, stream.projection.close());
      this.end(threadId, stream);
    }
  }

  private async sendMessages(request: SendRequest): Promise<void> {
    const { requestId, id: threadId } = request;
    if (request.trigger === "regenerate-message") {
      return this.fail(requestId, "bad_request: regenerate is not supported; send a new message");
    }
    if (this.streams.has(threadId)) {
      return this.fail(requestId, "busy: a response is already streaming for this chat");
    }
    const last = request.messages[request.messages.length - 1];
    if (last?.role === "assistant") return this.answer(requestId, threadId, last);
    const text = lastUserText(request.messages);
    if (typeof text !== "string") return this.fail(requestId, `bad_request: ${text.problem}`);
    const { repos, edge } = this.opts;
    let created = false;
    if (!(await repos.threads.get(edge.userId, threadId))) {
      try {
        await repos.threads.create(edge.userId, titleOf(text), Date.now(), threadId);
        created = true;
      } catch {
        return this.fail(requestId, "forbidden: this chat id is not available; use another");
      }
    }
    this.follow(requestId, threadId, new TurnProjection());
    const error = await edge.command({
      command: "chat_message",
      data: { content: text, thread_id: threadId, ...modelOf(request.body) },
    });
    if (!error) return;
    this.unfollow(threadId, requestId);
    // The native refusal stored nothing; neither does the edge.
    if (created) await repos.threads.delete(edge.userId, threadId);
    this.fail(requestId, errorText(error));
  }

  /** A response after the client answered a question (`addToolOutput`) or an approval. */
  private async answer(requestId: string, threadId: string, last: SendRequest["messages"][number]) {
    const answers = pendingAnswers(last.parts, threadId);
    if (answers.length === 0) {
      return this.fail(requestId, "bad_request: the last message is the assistant's and answers nothing");
    }
    const toolCallIds = last.parts.flatMap((part) =>
      part.toolCallId !== undefined ? [part.toolCallId] : [],
    );
    this.follow(requestId, threadId, new TurnProjection(last.id, toolCallIds, nodesOf(last.parts)));
    let error: ErrorFrame | undefined;
    // Only one question or approval waits at a time; older answers in the message are refused, unchanged.
    for (const command of answers) {
      error = await this.opts.edge.command(command);
      if (!error) return;
    }
    this.unfollow(threadId, requestId);
    this.fail(requestId, errorText(error as ErrorFrame));
  }

  private async resume(requestId: string, threadId: string): Promise<void> {
    const previous = this.streams.get(threadId);
    if (previous) this.unfollow(threadId, previous.requestId);
    this.follow(requestId, threadId, new TurnProjection(), true);
    const error = await this.opts.edge.command({
      command: "resume_chat",
      data: { thread_id: threadId, last_seq: 0 },
    });
    if (!error) return;
    this.unfollow(threadId, requestId);
    // A chat that does not exist (or is another user's) has nothing active, as the transport expects.
    if (error.code === "not_found") this.opts.send({ type: "no-active", requestId });
    else this.fail(requestId, errorText(error));
  }

  private resumed(threadId: string, status: TurnStatus | undefined): void {
    const stream = this.streams.get(threadId);
    if (!stream?.replay) return;
    const replay = stream.replay;
    stream.replay = undefined;
    if (status !== "running" && status !== "waiting_user") {
      this.unfollow(threadId, stream.requestId);
      this.opts.send({ type: "no-active", requestId: stream.requestId });
      return;
    }
    this.opts.send({ type: "start", requestId: stream.requestId });
    this.write(stream, replay);
    if (status === "waiting_user") {
      this.write(stream, stream.projection.close());
      this.end(threadId, stream);
    }
  }

  private async abort(requestId: string): Promise<void> {
    const threadId = this.threadOf.get(requestId);
    if (threadId === undefined) return;
    // A real stop: the turn ends `stopped` and its partial answer is stored, as on /ws.
    const error = await this.opts.edge.command({ command: "stop", data: { thread_id: threadId } });
    if (error) this.opts.edge.logger.debug({ code: error.code }, "ai-sdk abort: stop refused");
  }

  private follow(requestId: string, threadId: string, projection: TurnProjection, replay = false): void {
    this.streams.set(threadId, { requestId, projection, sequence: 0, ...(replay && { replay: [] }) });
    this.threadOf.set(requestId, threadId);
  }

  private unfollow(threadId: string, requestId: string): void {
    if (this.streams.get(threadId)?.requestId === requestId) this.streams.delete(threadId);
    this.threadOf.delete(requestId);
  }

  private write(stream: Stream, chunks: readonly UiChunk[]): void {
    for (const chunk of chunks) {
      this.opts.send({ type: "chunk", requestId: stream.requestId, sequence: stream.sequence++, chunk });
    }
  }

  private end(threadId: string, stream: Stream): void {
    this.unfollow(threadId, stream.requestId);
    this.opts.send({ type: "end", requestId: stream.requestId });
  }

  private fail(requestId: string, text: string): void {
    this.opts.send({ type: "error", requestId, errorText: text });
  }
}

/** `provider` and `model` from the request's `body`, when the app sends them. */
function modelOf(body: Record<string, unknown>): { provider?: string; model?: string } {
  return {
    ...(typeof body.provider === "string" && { provider: body.provider }),
    ...(typeof body.model === "string" && { model: body.model }),
  };
}

function errorText(error: ErrorFrame): string {
  return `${error.code}: ${error.message}`;
}
