import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { folderCycles, folderImports } from "../src/testing/folder-cycles.js";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/agents", () => {
  it("keep budget/, tools/ and turn/ at the bottom: above providers/, importing nothing of the loop", () => {
    const imports = folderImports(src);
    expect([...(imports.get("budget") ?? [])].sort()).toEqual([]);
    expect([...(imports.get("tools") ?? [])].sort()).toEqual(["providers", "turn"]);
    // A level's result names the budget breach it stopped at.
    expect([...(imports.get("turn") ?? [])].sort()).toEqual(["budget", "providers"]);
  });

  it("run subtasks on the loop they are handed: subtask/ imports neither loop/ nor suspend/", () => {
    const imports = folderImports(src);
    expect(imports.get("subtask")?.has("loop")).toBe(false);
    expect(imports.get("subtask")?.has("suspend")).toBe(false);
    expect(imports.get("loop")?.has("suspend")).toBe(false);
    expect(imports.get("loop")?.has("context")).toBe(false);
  });

  it("import each other in no loop", () => {
    expect(folderCycles(src)).toEqual([]);
  });
});
