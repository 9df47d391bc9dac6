import { scriptedProviderModule } from "@agentwire-chat/testkit/fixtures";
import { describe, expect, it } from "vitest";
import { isDone, useCluster } from "./support/cluster-instances.js";

/** Two real server processes on one Postgres and one Redis: a save on A redraws the user's editor on B. */
const { skip, instance, client } = useCluster({
  provider: scriptedProviderModule,
  leaseMs: 2_000,
});

const json = (body: unknown) => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

// Real server processes loading the sources through tsx: seconds each on a busy machine.
describe.skipIf(skip)("workflow_updated across two instances", { timeout: 60_000 }, () => {
  it("PUT /api/workflows/:id on A reaches the socket on B whose editor has the workflow open", async () => {
    const a = await instance("a");
    const b = await instance("b");
    const created = await fetch(`${a.url}/api/workflows`, {
      method: "POST",
      ...json({ name: "Draft", graph: { nodes: [], edges: [] } }),
    });
    expect(created.status).toBe(201);
    const { workflow } = (await created.json()) as { workflow: { id: string } };

    const onB = await client(b.url);
    onB.send("chat_message", {
      content: "hello",
      chat_context: { kind: "editor", workflow_id: workflow.id },
    });
    await onB.until(isDone);
    const put = await fetch(`${a.url}/api/workflows/${workflow.id}`, {
      method: "PUT",
      ...json({ name: "Renamed on A" }),
    });
    expect(put.status).toBe(200);
    const frame = await onB.until((f) => f.type === "workflow_updated");
    expect(frame).toMatchObject({
      type: "workflow_updated",
      workflow: { id: workflow.id, name: "Renamed on A" },
    });
  });
});
