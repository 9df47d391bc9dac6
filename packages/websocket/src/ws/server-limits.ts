import { z } from "zod";

const positiveInt = z.number().int().positive();

/** Connection limits; every one can be lowered for tests, the defaults are the production values. */
export const ServerLimits = z.strictObject({
  /** Largest client frame in bytes; a bigger one closes the socket with 1009. */
  maxPayloadBytes: positiveInt.default(1024 * 1024),
  /**
   * How long a connection may take to send a complete request header (an upgrade's too); past it the
   * server answers 408 and closes it, so a client dripping a header (slowloris) cannot hold a socket.
   */
  headersTimeoutMs: positiveInt.default(10_000),
  /**
   * How long a connection may take to send a whole request, body included (at least headersTimeoutMs);
   * past it the server answers 408 and closes it, so a client dripping a body cannot hold a socket.
   */
  requestTimeoutMs: positiveInt.default(60_000),
  /** Sustained client frames per second per connection. */
  messagesPerSecond: positiveInt.default(20),
  /** Frames a connection may send in a burst above the sustained rate. */
  messageBurst: positiveInt.default(40),
  /** Rate-limited frames in a row after which the connection is closed with 1008. */
  rateLimitStrikes: positiveInt.default(20),
  /** Interval of protocol pings; a socket that missed the previous pong is terminated. */
  heartbeatIntervalMs: positiveInt.default(30_000),
  /**
   * Open sockets per user; more are refused with HTTP 429 before the upgrade. Counted across
   * instances when they share Redis.
   */
  maxConnectionsPerUser: positiveInt.default(16),
  /**
   * Turns (`chat_message`) a user may start per minute, sustained; over it `error rate_limited`.
   * Counted across instances when they share Redis. Absent: no per-user turn limit.
   */
  userTurnsPerMinute: positiveInt.optional(),
  /** Turns a user may start at once above the sustained rate (default userTurnsPerMinute). */
  userTurnBurst: positiveInt.optional(),
  /** Past this many buffered bytes a socket gets no more frames and is closed with 1013 (resume later). */
  sendSoftLimitBytes: positiveInt.default(4 * 1024 * 1024),
  /**
   * Past this many buffered bytes a socket's frames wait for it to drain and its consecutive text
   * deltas merge (`seq_start`); default half of sendSoftLimitBytes.
   */
  sendMergeThresholdBytes: positiveInt.optional(),
  /** Past this many buffered bytes the socket cannot even take a close frame in time: terminated. */
  sendHardLimitBytes: positiveInt.default(16 * 1024 * 1024),
  /** How long shutdown waits for clients to acknowledge the 1012 close before terminating them. */
  closeTimeoutMs: positiveInt.default(3_000),
  /**
   * On shutdown, how long running turns may go on to finish (their clients, closed with 1012, resume
   * on another instance) before the rest are interrupted; 0 interrupts at once.
   */
  shutdownDrainMs: z.number().int().min(0).default(0),
});
export type ServerLimits = z.infer<typeof ServerLimits>;
export type ServerLimitsInput = z.input<typeof ServerLimits>;

/** Fills in production defaults and rejects nonsensical values up front. */
export function resolveServerLimits(input: ServerLimitsInput = {}): ServerLimits {
  const limits = ServerLimits.parse(input);
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new Error("requestTimeoutMs must be at least headersTimeoutMs");
  }
  if (limits.sendHardLimitBytes < limits.sendSoftLimitBytes) {
    throw new Error("sendHardLimitBytes must be at least sendSoftLimitBytes");
  }
  if (
    limits.sendMergeThresholdBytes !== undefined &&
    limits.sendMergeThresholdBytes > limits.sendSoftLimitBytes
  ) {
    throw new Error("sendMergeThresholdBytes must be at most sendSoftLimitBytes");
  }
  if (limits.userTurnBurst !== undefined && limits.userTurnsPerMinute === undefined) {
    throw new Error("userTurnBurst needs userTurnsPerMinute");
  }
  return limits;
}
