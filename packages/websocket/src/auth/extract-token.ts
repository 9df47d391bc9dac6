import { BEARER_PROTOCOL_PREFIX, PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire-chat/protocol";

/** Where a request carried its token; logged, the token itself never is. */
export type TokenCarrier = "header" | "subprotocol" | "query";

export interface PresentedToken {
  token: string;
  carrier: TokenCarrier;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  query?: unknown;
}

/**
 * The token a request presents, from the first carrier that has one: `Authorization: Bearer`,
 * the `agentwire.bearer.<t>` WebSocket subprotocol (browsers cannot set headers), or `?api_key=`.
 */
export function extractToken(request: RequestLike): PresentedToken | undefined {
  const authorization = first(request.headers.authorization);
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return { token: match[1], carrier: "header" };
  }
  const protocols = first(request.headers["sec-websocket-protocol"]);
  if (protocols) {
    for (const offered of protocols.split(",")) {
      const name = offered.trim();
      if (name.startsWith(BEARER_PROTOCOL_PREFIX) && name.length > BEARER_PROTOCOL_PREFIX.length) {
        return { token: name.slice(BEARER_PROTOCOL_PREFIX.length), carrier: "subprotocol" };
      }
    }
  }
  const query = request.query as Record<string, unknown> | undefined;
  const apiKey = query?.api_key;
  if (typeof apiKey === "string" && apiKey.length > 0) return { token: apiKey, carrier: "query" };
  return undefined;
}

/**
 * Whether an upgrade offers subprotocols and none of them is a version this server speaks (say only
 * `agentwire.bearer.<t>`): ws would answer 101 without a subprotocol, which a browser aborts on.
 * No header at all is fine: a client that offers nothing gets nothing back.
 */
export function offersNoKnownVersion(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (value === undefined) return false;
  const offered = new Set(value.split(",").map((name) => name.trim()));
  return selectSubprotocol(offered) === false;
}

/**
 * `handleProtocols` for ws: echo `agentwire.v1+nested` or `agentwire.v1`, never the bearer protocol
 * that holds the token.
 */
export function selectSubprotocol(offered: Set<string>): string | false {
  if (offered.has(PROTOCOL_V1_NESTED)) return PROTOCOL_V1_NESTED;
  return offered.has(PROTOCOL_V1) ? PROTOCOL_V1 : false;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
