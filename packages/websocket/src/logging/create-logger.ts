import pino, { type DestinationStream, type Logger } from "pino";
import { redactUrl } from "./redact-url.js";

export interface LoggerOptions {
  level?: string;
  /** Where JSON lines go; stdout by default (tests pass a stream to read them). */
  destination?: DestinationStream;
}

/** Paths pino blanks out wherever they appear: credentials must never reach a log line. */
export const REDACTED_PATHS = [
  "authorization",
  "token",
  "apiKey",
  "api_key",
  "*.authorization",
  "*.token",
  "*.apiKey",
  "*.api_key",
  "*.*.apiKey",
  "*.*.api_key",
  "req.headers.authorization",
  'req.headers["sec-websocket-protocol"]',
  "req.headers.cookie",
  "headers.authorization",
  'headers["sec-websocket-protocol"]',
];

interface RawRequestLike {
  method?: string;
  url?: string;
  ip?: string;
  id?: string;
  socket?: { remoteAddress?: string };
}

/** The pino logger the server uses: JSON lines, secrets redacted, query secrets cut from URLs. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      serializers: {
        // Fastify's own req serializer would log the raw URL, `?api_key=` included.
        req: (req: RawRequestLike) => ({
          method: req.method,
          url: req.url === undefined ? undefined : redactUrl(req.url),
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        }),
        err: pino.stdSerializers.err,
      },
    },
    options.destination,
  );
}
