import { describe, expect, it } from "vitest";
import { httpBase, socketUrl } from "../src/index.js";

describe("server URLs", () => {
  it("a socket URL is used as given; an http(s) base gets /ws", () => {
    expect(socketUrl("ws://127.0.0.1:8787/ws")).toBe("ws://127.0.0.1:8787/ws");
    expect(socketUrl("wss://agents.example/ws?x=1")).toBe("wss://agents.example/ws?x=1");
    expect(socketUrl("http://127.0.0.1:8787")).toBe("ws://127.0.0.1:8787/ws");
    expect(socketUrl("https://agents.example/")).toBe("wss://agents.example/ws");
    expect(socketUrl("https://example.com/agentwire")).toBe("wss://example.com/agentwire/ws");
  });

  it("the HTTP base of either", () => {
    expect(httpBase("ws://127.0.0.1:8787/ws")).toBe("http://127.0.0.1:8787");
    expect(httpBase("wss://agents.example/ws?x=1")).toBe("https://agents.example");
    expect(httpBase("https://example.com/agentwire/")).toBe("https://example.com/agentwire");
    expect(() => httpBase("ftp://x")).toThrow(TypeError);
  });
});
