import { fileURLToPath } from "node:url";
import { folderImports } from "@agentwire-chat/agents/testing";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/storage", () => {
  it("keep each dialect to itself: sqlite and postgres never import each other", () => {
    const imports = folderImports(src);
    expect(imports.get("sqlite")?.has("postgres") ?? false).toBe(false);
    expect(imports.get("postgres")?.has("sqlite") ?? false).toBe(false);
    // The dialects build on the contract, the frame log and the shared repositories.
    expect(imports.get("sqlite")?.has("contract")).toBe(true);
    expect(imports.get("postgres")?.has("shared")).toBe(true);
  });

  it("keep the contract, the frame log and the shared repositories free of either dialect", () => {
    const imports = folderImports(src);
    // openStorage loads a dialect with a dynamic import() only when chosen; no static import counts here.
    for (const folder of ["contract", "frame-log", "shared"]) {
      expect(imports.get(folder)?.has("sqlite") ?? false, folder).toBe(false);
      expect(imports.get(folder)?.has("postgres") ?? false, folder).toBe(false);
    }
  });
});
