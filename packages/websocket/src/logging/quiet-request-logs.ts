import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * Fastify's per-request log lines, made quiet: no "incoming request" line, and one `debug` line per
 * answered request (method, path, status, milliseconds) in place of its `info` one. The query string
 * is left out, since it may carry `api_key`. A request that failed is still logged at `error`, and
 * the error handler's own lines are untouched.
 */
export class QuietRequestLogs extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    const url = request.url.split("?", 1)[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log.debug({ method: request.method, url, status: reply.statusCode, ms }, "request completed");
  }
}
