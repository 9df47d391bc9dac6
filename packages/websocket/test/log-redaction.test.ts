import { startTestServer, upgradeStatus } from "@agentwire-chat/testkit/harness";
import { describe, expect, it } from "vitest";
import { createLogger, redactUrl } from "../src/index.js";
import { redactText } from "../src/logging/redact-text.js";

describe("log redaction", () => {
  it("never logs tokens from any carrier, nor api_key query values", async () => {
    const server = await startTestServer({ auth: "token", logLevel: "debug" });
    const token = await server.createToken("alice");
    for (const carrier of ["header", "subprotocol", "query"] as const) {
      const client = await server.connect({ token, carrier });
      await client.ping();
      await client.close();
      expect(await upgradeStatus(server.wsUrl, { token: "wrong-secret-value", carrier })).toBe(401);
    }
    await server.fetch(`/api/threads?api_key=${token}`);
    await server.fetch("/api/threads", { token });
    await server.close();
    const all = server.logs.join("");
    expect(all).not.toContain(token);
    expect(all).not.toContain("wrong-secret-value");
    // One debug line per answered request, its query string (and so the api_key) left out.
    expect(all).toMatch(
      /"method":"GET","url":"\/api\/threads","status":200,"ms":[\d.]+,"msg":"request completed"/,
    );
    expect(all).toContain('"connection_id"');
  });

  it("blanks secret fields wherever they appear in a log object", () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line) => lines.push(line) } });
    logger.info(
      {
        config: { openai: { apiKey: "sk-secret-1" }, token: "t-secret-2" },
        headers: { authorization: "Bearer x-secret-3" },
      },
      "config",
    );
    const line = lines.join("");
    for (const secret of ["sk-secret-1", "t-secret-2", "x-secret-3"]) expect(line).not.toContain(secret);
    expect(line).toContain("[redacted]");
  });

  it("redacts secret query values in URLs", () => {
    expect(redactUrl("/ws?api_key=abc&x=1")).toBe("/ws?api_key=[redacted]&x=1");
    expect(redactUrl("/ws?x=1&API_KEY=abc")).toBe("/ws?x=1&API_KEY=[redacted]");
  });
});

describe("redactText (a thrown message or stack, before it is logged)", () => {
  it.each([
    [
      "connect to postgres://admin:hunter2pw@db:5432/x failed",
      "connect to postgres://[redacted]@db:5432/x failed",
    ],
    ["db password=hunter2 at /srv/x", "db password=[redacted] at /srv/x"],
    ['{"api_key": "abc123secret"}', '{"api_key": "[redacted]"}'],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x.y", "Authorization: Bearer [redacted]"],
    ["sent Bearer abcdefgh12345678 upstream", "sent Bearer [redacted] upstream"],
    ["key sk-live-0123456789abcdef leaked", "key [redacted] leaked"],
    ["ENOENT: no such file, open '/srv/x'", "ENOENT: no such file, open '/srv/x'"],
  ])("%s", (text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });
});
