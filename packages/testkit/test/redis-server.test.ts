import { connect } from "node:net";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const skip = skipMissingService(redisMissing());

let server: TestRedis | undefined;

beforeAll(async () => {
  if (!skip) server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(skip)("test redis-server", () => {
  it("answers PING, SET and GET through ioredis", async () => {
    const redis = new Redis(server!.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      expect(await redis.ping()).toBe("PONG");
      expect(await redis.set("agentwire:test", "value")).toBe("OK");
      expect(await redis.get("agentwire:test")).toBe("value");
    } finally {
      await redis.quit();
    }
  });

  it("is gone after stop: its port refuses connections", async () => {
    const own = await startRedis();
    await own.stop();
    const port = Number(new URL(own.url).port);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(refused).toBe("ECONNREFUSED");
  });
});
