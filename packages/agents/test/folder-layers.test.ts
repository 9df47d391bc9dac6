import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { folderCycles, folderImports } from "../src/testing/folder-cycles.js";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/agents", () => {
  it("keep tools/ and turn/ at the bottom: above providers/, importing nothing of the loop", () => {
    const imports = folderImports(src);
    expect([...(imports.get("tools") ?? [])].sort()).toEqual(["providers", "turn"]);
    expect([...(imports.get("turn") ?? [])].sort()).toEqual(["providers"]);
  });

  it("import each other in one loop only: the agent loop with its subtasks, resume and context", () => {
    expect(folderCycles(src)).toEqual([["context", "loop", "subtask", "suspend"]]);
  });
});
