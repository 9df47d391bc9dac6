import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { folderCycles, folderImports } from "@agentwire/agents/testing";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/websocket", () => {
  it("point one way between storage, turns, sockets, commands and the server", () => {
    const imports = folderImports(src);
    const reaches = (from: string, to: string) => imports.get(from)?.has(to) ?? false;
    expect(reaches("turns", "ws")).toBe(false);
    expect(reaches("ws", "server")).toBe(false);
    expect(reaches("commands", "server")).toBe(false);
    expect(reaches("server", "ws") && reaches("server", "commands") && reaches("chat", "turns")).toBe(true);
  });

  it("import no database or Redis driver: storage is @agentwire/storage's, Redis @agentwire/cluster's", () => {
    const drivers = /from "(pg|better-sqlite3|drizzle-orm[^"]*|ioredis)"/;
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => drivers.test(readFileSync(join(src, f), "utf8")))).toEqual([]);
  });

  it("import each other in one loop only: chat and workflows (the workflow route still borrows chat's services)", () => {
    expect(folderCycles(src)).toEqual([["chat", "workflows"]]);
  });
});
