import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { folderCycles, folderImports } from "@agentwire-chat/agents/testing";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/websocket", () => {
  it("point one way between storage, turns, sockets, commands and the server", () => {
    const imports = folderImports(src);
    const reaches = (from: string, to: string) => imports.get(from)?.has(to) ?? false;
    expect(reaches("turns", "ws")).toBe(false);
    expect(reaches("ws", "server")).toBe(false);
    expect(reaches("commands", "server")).toBe(false);
    // Every edge builds its connection from ws/'s EdgeConnection; /ws knows none of the other edges.
    expect(reaches("ws", "edges")).toBe(false);
    expect(reaches("server", "ws") && reaches("server", "commands") && reaches("chat", "turns")).toBe(true);
  });

  it("import no database or Redis driver: storage is @agentwire-chat/storage's, Redis @agentwire-chat/cluster's", () => {
    const drivers = /from "(pg|better-sqlite3|drizzle-orm[^"]*|ioredis)"/;
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => drivers.test(readFileSync(join(src, f), "utf8")))).toEqual([]);
  });

  it("keep chat/ to itself: only the command table (and the package's index) imports it", () => {
    const imports = folderImports(src);
    const importers = [...imports].filter(([, to]) => to.has("chat")).map(([from]) => from);
    // media/ and workflows/ get their own services and the shared turn lifecycle, tools/ its own types.
    expect(importers.sort()).toEqual([".", "commands"]);
  });

  it("import each other in no loop", () => {
    expect(folderCycles(src)).toEqual([]);
  });
});
