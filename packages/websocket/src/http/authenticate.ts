import type { FastifyReply, FastifyRequest } from "fastify";
import { extractToken } from "../auth/extract-token.js";
import type { UserResolver } from "../auth/resolve-user.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated user, set by the authenticate hook on /ws and /api routes. */
    userId: string;
  }
}

/** An onRequest hook: finds the caller's user from the token (any carrier) or answers 401. */
export function authenticate(resolveUser: UserResolver) {
  return async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const presented = extractToken(request);
    const userId = await resolveUser(presented?.token);
    if (userId === undefined) {
      request.log.info({ carrier: presented?.carrier ?? "none" }, "authentication refused");
      await reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="agentwire"')
        .send({ code: "unauthorized", message: "a valid API token is required" });
      return reply;
    }
    request.userId = userId;
  };
}
