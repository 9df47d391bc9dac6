import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDefaultNodeRegistry } from "../../src/workflows/create-default-node-registry.js";
import { loadNodePlugin } from "../../src/workflows/load-node-plugin.js";
import { NodeRegistry } from "../../src/workflows/node-registry.js";
import { testNode } from "./helpers.js";

const noLlm = { resolve: () => ({ ok: false as const, message: "no providers" }) };

describe("NodeRegistry", () => {
  it("registers and lists node types sorted by name", () => {
    const r = new NodeRegistry();
    expect(r.register(testNode("b.x", async () => ({ ok: true, outputs: {} })))).toEqual({ ok: true });
    expect(r.register(testNode("a.x", async () => ({ ok: true, outputs: {} })))).toEqual({ ok: true });
    expect(r.list().map((n) => n.type)).toEqual(["a.x", "b.x"]);
    expect(r.has("a.x")).toBe(true);
  });

  it("refuses duplicates, bad names, duplicate ports and missing process as values", () => {
    const r = new NodeRegistry();
    const n = testNode("t.one", async () => ({ ok: true, outputs: {} }));
    r.register(n);
    expect(r.register(n)).toEqual({ ok: false, error: 'node type "t.one" is already registered' });
    expect(r.register({ ...n, type: "Bad Name" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("type:"),
    });
    expect(r.register({ ...n, type: "t.two", inputs: [...n.inputs, ...n.inputs] })).toEqual({
      ok: false,
      error: 'node type "t.two": duplicate inputs port "in"',
    });
    expect(r.register({ ...n, type: "t.three", process: undefined as never })).toMatchObject({
      ok: false,
      error: 'node type "t.three": process: must be a function',
    });
  });

  it("ships the starter set", () => {
    const r = createDefaultNodeRegistry({ providers: noLlm });
    expect(r.list().map((n) => n.type)).toEqual([
      "http.get",
      "input.text",
      "json.extract",
      "llm.prompt",
      "output.text",
      "text.template",
    ]);
  });
});

describe("loadNodePlugin", () => {
  const dir = mkdtemp(path.join(tmpdir(), "aw-plugin-"));
  const plugin = async (name: string, source: string) => {
    const file = path.join(await dir, name);
    await writeFile(file, source);
    return file;
  };
  const nodeSrc = (type: string) =>
    `{ type: "${type}", description: "d", inputs: [], outputs: [{ name: "out", schema: { type: "string" } }], process: async () => ({ ok: true, outputs: { out: "${type}" } }) }`;

  it("loads a module exporting register(registry)", async () => {
    const file = await plugin("reg.mjs", `export function register(r) { r.register(${nodeSrc("p.one")}); }`);
    const r = createDefaultNodeRegistry({ providers: noLlm });
    expect(await loadNodePlugin(r, file)).toEqual({ ok: true, registered: ["p.one"] });
    expect(r.has("p.one")).toBe(true);
  });

  it("loads a module exporting an array of node types", async () => {
    const file = await plugin("arr.mjs", `export default [${nodeSrc("p.two")}, ${nodeSrc("p.three")}];`);
    const r = new NodeRegistry();
    expect(await loadNodePlugin(r, file)).toEqual({ ok: true, registered: ["p.three", "p.two"] });
  });

  it("returns clear errors and adds nothing on failure", async () => {
    const r = createDefaultNodeRegistry({ providers: noLlm });
    const missing = await loadNodePlugin(r, "/nonexistent/plugin.mjs");
    expect(missing).toMatchObject({ ok: false, error: expect.stringContaining("cannot load") });

    const empty = await plugin("empty.mjs", "export const x = 1;");
    expect(await loadNodePlugin(r, empty)).toEqual({
      ok: false,
      error: `node plugin ${empty}: exports neither register(registry) nor an array of node types`,
    });

    const throws = await plugin("throws.mjs", `export function register() { throw new Error("boom"); }`);
    expect(await loadNodePlugin(r, throws)).toEqual({
      ok: false,
      error: `node plugin ${throws}: register() failed: boom`,
    });

    const dup = await plugin(
      "dup.mjs",
      `export const nodes = [${nodeSrc("p.fresh")}, ${nodeSrc("llm.prompt")}];`,
    );
    expect(await loadNodePlugin(r, dup)).toEqual({
      ok: false,
      error: `node plugin ${dup}: node type "llm.prompt" is already registered`,
    });
    expect(r.has("p.fresh")).toBe(false);
  });
});
