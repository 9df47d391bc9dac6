import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { folderCycles, folderImports } from "../src/testing/index.js";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("the folders of packages/agents", () => {
  it("import each other in no loop", () => {
    expect(folderCycles(src)).toEqual([]);
  });

  it("run subtasks on the loop they are handed: subtask/ imports neither loop/ nor suspend/", () => {
    const imports = folderImports(src);
    expect(imports.get("subtask")?.has("loop")).toBe(false);
    expect(imports.get("subtask")?.has("suspend")).toBe(false);
    expect(imports.get("loop")?.has("suspend")).toBe(false);
    expect(imports.get("loop")?.has("context")).toBe(false);
  });
});
