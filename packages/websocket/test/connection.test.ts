import type { FastifyBaseLogger } from "fastify";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Connection, RateLimiter, type SocketLike } from "../src/index.js";

function fakeSocket(bufferedAmount = 0) {
  const socket = {
    readyState: 1,
    bufferedAmount,
    sent: [] as string[],
    closedWith: undefined as number | undefined,
    terminated: false,
    pings: 0,
    send(data: string) {
      this.sent.push(data);
    },
    close(code?: number) {
      this.closedWith = code;
      this.readyState = 2;
    },
    terminate() {
      this.terminated = true;
      this.readyState = 3;
    },
    ping() {
      this.pings += 1;
    },
  };
  return socket satisfies SocketLike;
}

const logger = pino({ level: "silent" }) as FastifyBaseLogger;
const make = (socket: SocketLike) =>
  new Connection({ id: "c", userId: "u", socket, logger, sendSoftLimitBytes: 100, sendHardLimitBytes: 1000 });

describe("Connection backpressure", () => {
  it("sends while the buffer is under the soft limit", () => {
    const socket = fakeSocket(100);
    expect(make(socket).send({ type: "pong" })).toBe(true);
    expect(socket.sent).toEqual(['{"type":"pong"}']);
  });

  it("stops queueing past the soft limit and closes with 1013", () => {
    const socket = fakeSocket(101);
    const connection = make(socket);
    expect(connection.send({ type: "pong" })).toBe(false);
    expect(socket.closedWith).toBe(1013);
    socket.bufferedAmount = 0;
    expect(connection.send({ type: "pong" })).toBe(false);
    expect(socket.sent).toEqual([]);
  });

  it("terminates past the hard limit", () => {
    const socket = fakeSocket(1001);
    expect(make(socket).send({ type: "pong" })).toBe(false);
    expect(socket.terminated).toBe(true);
  });

  it("heartbeat pings, and terminates after a missed pong", () => {
    const socket = fakeSocket();
    const connection = make(socket);
    connection.heartbeat();
    connection.markAlive();
    connection.heartbeat();
    expect(socket.pings).toBe(2);
    connection.heartbeat();
    expect(socket.terminated).toBe(true);
  });
});

describe("RateLimiter", () => {
  it("allows a burst, then refills at the rate", () => {
    const limiter = new RateLimiter(2, 3, 0);
    expect([0, 0, 0, 0].map(() => limiter.tryTake(0))).toEqual([true, true, true, false]);
    expect(limiter.tryTake(499)).toBe(false);
    expect(limiter.tryTake(500)).toBe(true);
  });
});
