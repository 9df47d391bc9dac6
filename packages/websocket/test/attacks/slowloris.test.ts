/**
 * Slowloris and unauthenticated upgrades against a real server in token mode (issue 13): connections
 * that drip a request header (plain or upgrade) or a body and never finish are answered 408 and closed
 * once their time is up; upgrades without a valid token get 401, never 101, and are closed; `/health`
 * answers 200 throughout, and clients that behave are not cut off.
 */
import { connect, type Socket } from "node:net";
import {
  startTestServer,
  type TestClient,
  type TestServer,
  withTimeout,
} from "@agentwire-chat/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Connections dripping a header, half of them upgrades to /ws. */
const HELD_HEADERS = 200;
/** Connections dripping a body they announced. */
const HELD_BODIES = 20;
const UNAUTHENTICATED_UPGRADES = 200;
const HEADERS_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 4_000;

let server: TestServer;
let port: number;
let token: string;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer({
    auth: "token",
    limits: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  });
  port = Number(new URL(server.httpUrl).port);
  token = await server.createToken("alice");
  // A socket opened before the attack: the timeouts bound requests, never an upgraded socket.
  client = await server.connect({ token });
});
afterAll(async () => {
  await server?.close();
});

/** A raw TCP connection: what the server sent, and when the server closed it (we never do). */
type RawConnection = {
  socket: Socket;
  isOpen(): boolean;
  closed: Promise<{ afterMs: number; received: string }>;
};

function openRaw(): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let open = true;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const closed = new Promise<{ afterMs: number; received: string }>((done) => {
      socket.on("close", () => {
        open = false;
        done({ afterMs: Date.now() - startedAt, received });
      });
    });
    // A write racing the server's close fails with EPIPE/ECONNRESET: the close is what is checked.
    socket.on("error", () => undefined);
    socket.once("connect", () => resolve({ socket, isOpen: () => open, closed }));
    socket.once("error", reject);
  });
}

const upgradeHeaders = (extra = "") =>
  `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
  `Sec-WebSocket-Key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\n${extra}`;

/** Whether every connection closed within `ms` (by the server), with what each received. */
function allClosed(connections: RawConnection[], ms: number) {
  return withTimeout(
    Promise.all(connections.map((c) => c.closed)),
    ms,
    `${connections.length} held connections to be closed`,
  );
}

/** A complete keep-alive request on an open raw connection; resolves with the status line's code. */
function requestOn(connection: RawConnection, path: string): Promise<number> {
  return new Promise((resolve) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
      if (end >= 0 && text.length >= end + 4 + length) {
        connection.socket.off("data", onData);
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0));
      }
    };
    connection.socket.on("data", onData);
    connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
}

describe("slowloris and unauthenticated upgrades (token mode)", () => {
  it("answers 408 and closes connections that drip a header or a body, while /health answers 200", async () => {
    const polite = await openRaw();
    expect(await requestOn(polite, "/health")).toBe(200);

    const headers = await Promise.all(Array.from({ length: HELD_HEADERS }, () => openRaw()));
    headers.forEach((c, i) => {
      const upgrade = i % 2 === 0;
      c.socket.write(
        `GET ${upgrade ? "/ws" : "/health"} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          `${upgrade ? upgradeHeaders(`Authorization: Bearer ${token}\r\n`) : ""}X-Slow: `,
      );
    });
    const bodies = await Promise.all(Array.from({ length: HELD_BODIES }, () => openRaw()));
    for (const c of bodies) {
      c.socket.write(
        `POST /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: 100000\r\n\r\n{"a":"`,
      );
    }
    const held = [...headers, ...bodies];

    // Every 100 ms each held connection sends one more byte, and /health is asked meanwhile.
    const health: { status: number; heldOpen: number }[] = [];
    const drip = setInterval(() => {
      for (const c of held) if (c.isOpen()) c.socket.write("a");
      const heldOpen = held.filter((c) => c.isOpen()).length;
      void server.fetch("/health").then(
        (res) => health.push({ status: res.status, heldOpen }),
        () => health.push({ status: 0, heldOpen }),
      );
    }, 100);
    try {
      const headerEnds = await allClosed(headers, HEADERS_TIMEOUT_MS * 10);
      const bodyEnds = await allClosed(bodies, REQUEST_TIMEOUT_MS * 10);
      // Answered 408 and nothing else (no upgrade got a 101), and not before their time.
      for (const end of [...headerEnds, ...bodyEnds]) {
        expect(end.received).toMatch(/^HTTP\/1\.1 408 /);
        expect(end.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      }
      for (const end of headerEnds) expect(end.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      for (const end of bodyEnds) expect(end.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    } finally {
      clearInterval(drip);
    }

    // /health answered during the attack, with every held connection still open at least once.
    expect(health.length).toBeGreaterThan(5);
    expect(health.every((h) => h.status === 200)).toBe(true);
    expect(health.some((h) => h.heldOpen === held.length)).toBe(true);
    // A keep-alive connection idle longer than the timeouts, between complete requests, is not cut off.
    expect(polite.isOpen()).toBe(true);
    expect(await requestOn(polite, "/health")).toBe(200);
    polite.socket.destroy();
    // Neither is a WebSocket opened before the attack.
    await client.ping();
  }, 60_000);

  it("answers 401 and closes every unauthenticated upgrade, never 101, while /health answers 200", async () => {
    const refused = [
      "",
      "Authorization: Bearer not-a-token\r\n",
      `Authorization: Bearer ${token}x\r\n`,
      "Authorization: Bearer \r\n",
      "Authorization: Basic YWxpY2U6c2VjcmV0\r\n",
      "Sec-WebSocket-Protocol: agentwire.v1, agentwire.bearer.wrong\r\n",
    ];
    const connections = await Promise.all(Array.from({ length: UNAUTHENTICATED_UPGRADES }, () => openRaw()));
    connections.forEach((c, i) => {
      const query = i % (refused.length + 1) === refused.length ? "?api_key=wrong" : "";
      const credentials = query ? "" : refused[i % (refused.length + 1)];
      c.socket.write(
        `GET /ws${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${upgradeHeaders(credentials)}\r\n`,
      );
    });
    const health = await Promise.all(Array.from({ length: 10 }, () => server.fetch("/health")));
    const ends = await allClosed(connections, 20_000);

    for (const end of ends) {
      expect(end.received).toMatch(/^HTTP\/1\.1 401 /);
      expect(end.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    }
    expect(health.map((res) => res.status)).toEqual(Array(10).fill(200));
    // Only the authenticated socket is open on the server.
    expect(server.app.websocketServer.clients.size).toBe(1);
    await client.ping();
  }, 60_000);
});
