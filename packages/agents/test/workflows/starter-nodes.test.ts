import { describe, expect, it } from "vitest";
import type { Provider } from "../../src/providers/provider.js";
import { createProviderRegistry } from "../../src/providers/registry.js";
import { ScriptedProvider } from "../../src/testing/scripted-provider.js";
import { createDefaultNodeRegistry } from "../../src/workflows/create-default-node-registry.js";
import { runWorkflow } from "../../src/workflows/run-workflow.js";
import { drain, edge } from "./helpers.js";

/** The real provider registry, holding only scripted providers. */
const providersOf = (...providers: Provider[]) => createProviderRegistry({}, { extraProviders: providers });

const signal = new AbortController().signal;

function summarise(llmProps: Record<string, unknown> = {}) {
  return {
    nodes: [
      { id: "in", type: "input.text" },
      { id: "tpl", type: "text.template", properties: { template: "Summarise: {{text}}" } },
      { id: "llm", type: "llm.prompt", properties: { system: "Be brief.", ...llmProps } },
      { id: "out", type: "output.text" },
    ],
    edges: [edge("in.text -> tpl.text"), edge("tpl.text -> llm.prompt"), edge("llm.text -> out.text")],
  };
}

describe("starter nodes", () => {
  it("llm.prompt streams the chat's provider/model through the registry", async () => {
    const long = "x".repeat(70);
    const provider = new ScriptedProvider([{ text: ["A short ", "summary. ", long] }]);
    const registry = createDefaultNodeRegistry({ providers: providersOf(provider) });
    let llmCalls = 0;
    const { frames, result } = await drain(
      runWorkflow({
        graph: summarise(),
        registry,
        input: { text: "a long story", provider: "scripted", model: "m-1" },
        signal,
        countLlmCall: () => {
          llmCalls++;
          return true;
        },
      }),
    );
    expect(result).toMatchObject({ status: "complete", text: `A short summary. ${long}` });
    expect(llmCalls).toBe(1);
    provider.assertComplete();
    expect(provider.requests).toEqual([
      {
        model: "m-1",
        systemPrompt: "Be brief.",
        messages: [{ role: "user", content: "Summarise: a long story" }],
        tools: [],
      },
    ]);
    const running = frames.filter(
      (f) => f.type === "node_update" && f.node_id === "llm" && f.status === "running",
    );
    expect(running.map((f) => (f.type === "node_update" ? f.result_preview : null))).toEqual([
      undefined,
      `A short summary. ${long}`,
    ]);
  });

  it("llm.prompt: node properties override the chat; provider errors and budget refusals fail the node", async () => {
    const a = new ScriptedProvider({ id: "a", steps: [{ error: { message: "rate limited", status: 429 } }] });
    const registry = createDefaultNodeRegistry({
      providers: providersOf(a),
      modelDefaults: { provider: "a", model: "default-model" },
    });
    const run = (props: Record<string, unknown>, countLlmCall?: () => boolean) =>
      drain(
        runWorkflow({
          graph: summarise(props),
          registry,
          input: { text: "t" },
          signal,
          ...(countLlmCall && { countLlmCall }),
        }),
      );
    expect((await run({ provider: "nope" })).result.error).toBe(
      'node "llm" (llm.prompt) failed: unknown provider "nope"; configured providers: a',
    );
    expect((await run({}, () => false)).result.error).toBe(
      `node "llm" (llm.prompt) failed: the turn's LLM call budget is exhausted`,
    );
    expect((await run({ model: "special" })).result.error).toBe(
      'node "llm" (llm.prompt) failed: a error: rate limited',
    );
    expect(a.requests[0]?.model).toBe("special");
  });

  it("json.extract and text.template compose values", async () => {
    const registry = createDefaultNodeRegistry({ providers: providersOf() });
    const { result } = await drain(
      runWorkflow({
        graph: {
          nodes: [
            { id: "in", type: "input.text" },
            { id: "name", type: "json.extract", properties: { path: "$.items[1].name" } },
            { id: "first", type: "json.extract", properties: { path: "items[0].name" } },
            {
              id: "tpl",
              type: "text.template",
              properties: { template: "second={{data}} first={{text}}" },
            },
            { id: "out", type: "output.text" },
          ],
          edges: [
            edge("in.text -> name.json"),
            edge("in.text -> first.json"),
            edge("first.value -> tpl.text"),
            edge("name.value -> tpl.data"),
            edge("tpl.text -> out.text"),
          ],
        },
        registry,
        input: { text: JSON.stringify({ items: [{ name: "a" }, { name: "b" }] }) },
        signal,
      }),
    );
    expect(result).toEqual({
      status: "complete",
      outputs: { out: { text: "second=b first=a" } },
      text: "second=b first=a",
    });
  });

  it("json.extract reports a missing path and bad JSON; text.template fills data paths", async () => {
    const registry = createDefaultNodeRegistry({ providers: providersOf() });
    const extract = registry.get("json.extract")!;
    const ctx = {
      nodeId: "n",
      properties: {},
      input: { text: "" },
      progress: () => {},
      countLlmCall: () => true,
    };
    expect(await extract.process({ json: { a: [1, { b: 2 }] }, path: "a[1].b" }, ctx, signal)).toEqual({
      ok: true,
      outputs: { value: 2 },
    });
    expect(await extract.process({ json: { a: [] }, path: "a[3]" }, ctx, signal)).toEqual({
      ok: false,
      error: "path $.a[3] not found",
    });
    expect(await extract.process({ json: "{oops", path: "a" }, ctx, signal)).toMatchObject({
      ok: false,
      error: expect.stringContaining('input "json" is not valid JSON'),
    });
    const tpl = registry.get("text.template")!;
    expect(
      await tpl.process(
        {
          template: "{{ data.user.name }} says {{text}}; {{data.tags}}",
          text: "hi",
          data: { user: { name: "Ann" }, tags: ["x"] },
        },
        ctx,
        signal,
      ),
    ).toEqual({ ok: true, outputs: { text: 'Ann says hi; [\n  "x"\n]' } });
    expect(await tpl.process({ template: "{{text}} {{data.x}} {{other}}" }, ctx, signal)).toEqual({
      ok: false,
      error: "no value for {{text}}, {{data.x}}, {{other}}",
    });
  });
});
