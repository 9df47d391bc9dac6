import { startTestServer } from "@agentwire-chat/testkit/harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions
type Body = Record<string, any>;
const json = async (res: Response) => (await res.json()) as Body;
const post = (body: unknown, token?: string) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
  ...(token !== undefined && { token }),
});

describe("workflows HTTP API", () => {
  it("creates, lists, reads, updates and deletes the caller's workflows", async () => {
    server = await startRouteServer([]);
    const created = await server.fetch("/api/workflows", post({ name: "Translate", graph: translateGraph }));
    expect(created.status).toBe(201);
    const { workflow } = await json(created);
    expect(workflow).toMatchObject({ name: "Translate", graph: { nodes: translateGraph.nodes } });
    expect(typeof workflow.id).toBe("string");

    const list = await json(await server.fetch("/api/workflows"));
    expect(list.workflows).toEqual([
      {
        id: workflow.id,
        name: "Translate",
        created_at: workflow.created_at,
        updated_at: workflow.updated_at,
      },
    ]);
    expect((await json(await server.fetch(`/api/workflows/${workflow.id}`))).workflow).toEqual(workflow);

    const graph = {
      nodes: [
        { id: "in", type: "input.text" },
        { id: "out", type: "output.text" },
      ],
      edges: [{ source: "in", source_port: "text", target: "out", target_port: "text" }],
    };
    const put = await server.fetch(`/api/workflows/${workflow.id}`, {
      ...post({ name: "Echo", graph }),
      method: "PUT",
    });
    expect(put.status).toBe(200);
    const updated = (await json(put)).workflow;
    // The stored graph is the validated one: defaults filled in.
    expect(updated).toMatchObject({
      id: workflow.id,
      name: "Echo",
      graph: { nodes: [{ id: "in", properties: {} }, { id: "out" }] },
    });
    expect((await server.repos.workflows.get("local", workflow.id))?.name).toBe("Echo");

    const renamed = await server.fetch(`/api/workflows/${workflow.id}`, {
      ...post({ name: "Echo 2" }),
      method: "PUT",
    });
    expect((await json(renamed)).workflow).toMatchObject({ name: "Echo 2", graph: updated.graph });

    expect((await server.fetch(`/api/workflows/${workflow.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.fetch(`/api/workflows/${workflow.id}`)).status).toBe(404);
    expect((await json(await server.fetch("/api/workflows"))).workflows).toEqual([]);
  });

  it("refuses an invalid graph with 400 naming node and port, and stores nothing", async () => {
    server = await startRouteServer([]);
    const bad = {
      nodes: [
        { id: "in", type: "input.text" },
        { id: "llm", type: "llm.prompt" },
        { id: "x", type: "no.such" },
      ],
      edges: [{ source: "in", source_port: "text", target: "llm", target_port: "promt" }],
    };
    const res = await server.fetch("/api/workflows", post({ name: "Bad", graph: bad }));
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message).toContain('node "llm" port "promt"');
    expect(body.error.message).toContain('node "llm" port "prompt": required input is not connected');
    expect(body.error.message).toContain('node "x": unknown node type "no.such"');
    expect(body.error.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ node_id: "llm", port: "promt" }),
        expect.objectContaining({ node_id: "llm", port: "prompt" }),
        expect.objectContaining({ node_id: "x" }),
      ]),
    );
    const noName = await server.fetch("/api/workflows", post({ graph: translateGraph }));
    expect(noName.status).toBe(400);
    expect((await json(noName)).error).toMatchObject({
      code: "bad_request",
      message: expect.stringContaining("name"),
    });
    // NUL cannot be stored in Postgres text: refused as bad input on both dialects, never a 500.
    const nul = await server.fetch("/api/workflows", post({ name: "a\u0000b", graph: translateGraph }));
    expect(nul.status).toBe(400);
    expect((await json(nul)).error).toMatchObject({
      code: "bad_request",
      message: expect.stringContaining("NUL"),
    });
    const notJson = await server.fetch("/api/workflows", post({ name: "x", graph: { nodes: "all" } }));
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).error.message).toContain("nodes");
    expect(await server.repos.workflows.list("local")).toEqual([]);

    // An empty draft is a valid shape: the editor saves one before it has nodes.
    const draft = await server.fetch("/api/workflows", post({ name: "Draft", graph: { nodes: [] } }));
    expect(draft.status).toBe(201);
    // An invalid update leaves the stored graph alone.
    const { workflow } = await json(draft);
    const put = await server.fetch(`/api/workflows/${workflow.id}`, {
      ...post({ graph: bad }),
      method: "PUT",
    });
    expect(put.status).toBe(400);
    expect((await server.repos.workflows.get("local", workflow.id))?.graph).toEqual({ nodes: [], edges: [] });
  });

  it("treats another user's workflow exactly like a missing one", async () => {
    server = await startRouteServer([], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const { workflow } = await json(
      await server.fetch("/api/workflows", post({ name: "Mine", graph: translateGraph }, alice)),
    );
    for (const init of [
      { method: "GET" },
      { ...post({ name: "Stolen" }), method: "PUT" },
      { method: "DELETE" },
    ]) {
      const theirs = await server.fetch(`/api/workflows/${workflow.id}`, { ...init, token: bob });
      const missing = await server.fetch("/api/workflows/nope", { ...init, token: bob });
      expect(theirs.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(await json(theirs)).toEqual(await json(missing));
    }
    expect((await json(await server.fetch("/api/workflows", { token: bob }))).workflows).toEqual([]);
    expect((await server.repos.workflows.get("alice", workflow.id))?.name).toBe("Mine");
    expect((await server.fetch("/api/workflows")).status).toBe(401);
  });

  it("is not served when the server has no workflow services", async () => {
    server = await startRouteServer([], { workflows: false });
    expect((await server.fetch("/api/workflows")).status).toBe(404);
    const bare = await startTestServer();
    try {
      expect((await bare.fetch("/api/workflows")).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
