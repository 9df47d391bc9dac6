import { Ajv } from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileOutputSchema } from "../../src/subtask/compile-output-schema.js";
import { createAjv } from "../../src/tools/create-ajv.js";

// MCP servers announce schemas with `format: "uri"` and formats of their own; ajv's default logger is
// `console`, which printed `unknown format "uri" ignored in schema…` to stderr on every turn, outside pino.

const schema = {
  type: "object",
  properties: { url: { type: "string", format: "uri" }, tag: { type: "string", format: "x-agentwire-tag" } },
  required: ["url"],
};

/** Everything written to stderr or through console while `fn` runs. */
function strayOutput(fn: () => void): string[] {
  const out: string[] = [];
  const record = (...args: unknown[]) => {
    out.push(args.map(String).join(" "));
  };
  const spies = [
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      record(chunk);
      return true;
    }),
    ...(["warn", "error", "log", "info", "debug"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(record),
    ),
  ];
  try {
    fn();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe("createAjv", () => {
  it("a plain Ajv does print the warning (what the spies must catch)", () => {
    const out = strayOutput(() => new Ajv({ strict: false }).compile(schema));
    expect(out.join("\n")).toMatch(/unknown format "uri" ignored/);
  });

  it("knows format uri, validates with it, and routes the unknown-format note to the logger only", () => {
    const notes: { obj: object; msg: string }[] = [];
    const logger = { warn: (obj: object, msg: string) => notes.push({ obj, msg }) };
    let validate: ReturnType<Ajv["compile"]> | undefined;
    const out = strayOutput(() => {
      validate = createAjv({ logger }).compile(schema);
      validate({ url: "https://example.com/a?b=c" });
      validate({ url: "not a uri" });
    });
    expect(out).toEqual([]);
    expect(validate?.({ url: "https://example.com/a?b=c", tag: "anything" })).toBe(true);
    expect(validate?.({ url: "not a uri" })).toBe(false);
    expect(validate?.errors?.[0]).toMatchObject({ instancePath: "/url", params: { format: "uri" } });
    expect(notes).toEqual([
      { obj: { source: "ajv" }, msg: expect.stringMatching(/unknown format "x-agentwire-tag" ignored/) },
    ]);
  });

  it("without a logger drops ajv's notes instead of printing them", () => {
    const out = strayOutput(() => createAjv().compile(schema));
    expect(out).toEqual([]);
  });

  it("run_subtask output schemas compile without stray output", () => {
    const out = strayOutput(() => {
      const compiled = compileOutputSchema({ ...schema, title: "stray-output-check" });
      expect(compiled.ok && compiled.validate({ url: "mailto:a@example.com" })).toBe(true);
    });
    expect(out).toEqual([]);
  });
});
