import { describe, expect, it } from "vitest";
import { validateWorkflow } from "../../src/workflows/validate-workflow.js";
import { edge, stringRegistry } from "./helpers.js";

const registry = stringRegistry();

describe("validateWorkflow", () => {
  it("accepts a chain and returns a runnable order", () => {
    const res = validateWorkflow(
      {
        nodes: [
          { id: "out", type: "output.sink" },
          { id: "up", type: "upper" },
          { id: "s", type: "src", properties: { value: "x" } },
        ],
        edges: [edge("s.out -> up.in"), edge("up.out -> out.text")],
      },
      registry,
    );
    expect(res.ok).toBe(true);
    if (res.ok) expect(res.order).toEqual(["s", "up", "out"]);
  });

  it("satisfies a required input with a property of the same name", () => {
    const res = validateWorkflow({ nodes: [{ id: "u", type: "upper", properties: { in: "hi" } }] }, registry);
    expect(res.ok).toBe(true);
  });

  it("names node and port for each error", () => {
    const res = validateWorkflow(
      {
        nodes: [
          { id: "s", type: "src" },
          { id: "s", type: "src" },
          { id: "x", type: "nope" },
          { id: "u", type: "upper" },
          { id: "lonely", type: "upper" },
          { id: "j", type: "join", properties: { a: 5 } },
          { id: "c", type: "count" },
          { id: "o", type: "output.sink" },
        ],
        edges: [
          edge("s.missing -> u.in"),
          edge("s.out -> u.bogus"),
          edge("c.n -> j.b"),
          edge("s.out -> o.text"),
          edge("u.out -> o.text"),
          edge("ghost.out -> o.text"),
        ],
      },
      registry,
    );
    expect(res.ok).toBe(false);
    if (res.ok) return;
    const got = res.errors.map((e) => [e.node_id, e.port ?? null, e.message]);
    expect(got).toEqual(
      expect.arrayContaining([
        ["s", null, 'duplicate node id "s"'],
        ["x", null, 'unknown node type "nope"'],
        ["s", "missing", 'src has no output "missing" (outputs: out)'],
        ["u", "bogus", 'upper has no input "bogus" (inputs: in)'],
        ["j", "b", "input expects string but c.n gives integer"],
        ["o", "text", "input is fed by more than one edge"],
        ["o", "text", 'edge from unknown node "ghost"'],
        ["lonely", "in", "required input is not connected and has no property"],
        ["j", "a", "property expects string, got integer"],
      ]),
    );
  });

  it("refuses cycles, naming the nodes on them", () => {
    const res = validateWorkflow(
      {
        nodes: [
          { id: "a", type: "upper" },
          { id: "b", type: "upper" },
          { id: "ok", type: "src" },
        ],
        edges: [edge("a.out -> b.in"), edge("b.out -> a.in")],
      },
      registry,
    );
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.errors).toEqual([
        { node_id: "a", message: "node is part of a cycle" },
        { node_id: "b", message: "node is part of a cycle" },
      ]);
    }
  });

  it("treats a schema without type as compatible with everything", () => {
    const r = stringRegistry([
      {
        type: "any.src",
        description: "any",
        inputs: [],
        outputs: [{ name: "v", schema: {} }],
        process: async () => ({ ok: true, outputs: { v: 1 } }),
      },
    ]);
    const res = validateWorkflow(
      {
        nodes: [
          { id: "a", type: "any.src" },
          { id: "u", type: "upper" },
        ],
        edges: [edge("a.v -> u.in")],
      },
      r,
    );
    expect(res.ok).toBe(true);
  });

  it("reports shape errors with the node id when it can", () => {
    const res = validateWorkflow({ nodes: [{ id: "n1", type: "" }], edges: [] }, registry);
    expect(res).toEqual({
      ok: false,
      errors: [{ node_id: "n1", message: expect.stringMatching(/^nodes\[0\]\.type: /) }],
    });
    expect(validateWorkflow({ nodes: [] }, registry)).toEqual({
      ok: false,
      errors: [{ node_id: null, message: "the workflow has no nodes" }],
    });
    const empty = validateWorkflow("nope", registry);
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.errors[0]?.node_id).toBeNull();
  });
});
