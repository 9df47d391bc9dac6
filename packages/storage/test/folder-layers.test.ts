import { fileURLToPath } from "node:url";
import { folderImports } from "@agentwire-chat/agents/testing";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/storage", () => {
  it("keep each dialect to itself: sqlite and postgres never import each other", () => {
    const imports = folderImports(src);
    expect(imports.get("sqlite")?.has("postgres") ?? false).toBe(false);
    expect(imports.get("postgres")?.has("sqlite") ?? false).toBe(false);
    // The dialects build on the contract (repositories, frame log) at the package's root.
    expect(imports.get("sqlite")?.size).toBeGreaterThan(0);
  });
});
