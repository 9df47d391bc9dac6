import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a source imports, with whether the import is type-only. */
function imports(file: string): { from: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)].map((m) => ({
    from: m[3] ?? "",
    typeOnly: m[2] !== undefined,
  }));
}

/** The protocol's modules that hold no zod: the only ones the SDK may import values from. */
const zodFree = new Set([
  "@agentwire-chat/protocol/preview",
  "@agentwire-chat/protocol/restart-detail",
  "@agentwire-chat/protocol/subprotocols",
  "@agentwire-chat/protocol/turn-status-on-wire",
]);

describe("what the SDK imports", () => {
  it("its own files, the protocol's types, and only the protocol's zod-free modules as values; no Node API", () => {
    const outside = sources().flatMap((file) =>
      imports(file)
        .filter((i) => !i.from.startsWith("."))
        .filter((i) => !(i.from === "@agentwire-chat/protocol" && i.typeOnly))
        .filter((i) => !zodFree.has(i.from))
        .map((i) => `${file.slice(SRC.length)}: ${i.from}`),
    );
    expect(outside).toEqual([]);
    expect(sources().length).toBeGreaterThan(10);
  });
});
