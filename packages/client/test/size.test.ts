import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../scripts/size.mjs", import.meta.url));

describe("bundle size", () => {
  it("the SDK bundled for a browser is within 12 KB min+gzip and carries no zod", () => {
    // The script exits non-zero over the budget, which fails this call.
    const m = JSON.parse(execFileSync(process.execPath, [script, "--json"], { encoding: "utf8" })) as {
      gzipBytes: number;
      budgetBytes: number;
      zod: boolean;
      inputs: string[];
    };
    expect(m.budgetBytes).toBe(12 * 1024);
    expect(m.gzipBytes).toBeGreaterThan(1000);
    expect(m.gzipBytes).toBeLessThanOrEqual(m.budgetBytes);
    expect(m.zod).toBe(false);
    // Only the protocol's zod-free modules are bundled.
    expect(m.inputs.filter((i) => i.includes("protocol/")).sort()).toEqual([
      "../protocol/src/preview.ts",
      "../protocol/src/restart-detail.ts",
      "../protocol/src/subprotocols.ts",
      "../protocol/src/turn-status-on-wire.ts",
    ]);
  });
});
