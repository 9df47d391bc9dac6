import { contentText } from "@agentwire-chat/client";
import { contentText as protocolContentText } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { connectionStatus } from "../src/app-state.js";
import { clientToolsManifest, type GraphView, runClientTool } from "../src/editor/client-tools.js";
import { unwrap } from "../src/net/http-api.js";
import { parseRoute, routeHash } from "../src/route.js";
import { safeHref } from "../src/ui/safe-href.js";

describe("client tools", () => {
  const effects = () => {
    const seen: { graphs: GraphView[]; notes: string[] } = { graphs: [], notes: [] };
    return {
      seen,
      effects: {
        showGraph: (g: GraphView) => seen.graphs.push(g),
        notify: (m: string, level: string) => seen.notes.push(`${level}:${m}`),
      },
    };
  };

  it("announces valid tool specs", () => {
    expect(clientToolsManifest.map((t) => t.name)).toEqual(["ui_show_graph", "ui_notify"]);
  });

  it("draws a graph, dropping edges to unknown nodes", () => {
    const { seen, effects: fx } = effects();
    const outcome = runClientTool(
      "ui_show_graph",
      {
        nodes: [{ id: "a", label: "Input" }, { id: "b" }, { label: "no id" }],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "z" },
        ],
      },
      fx,
    );
    expect(outcome).toEqual({ ok: true, result: { shown: true, nodes: 2, edges: 1 } });
    expect(seen.graphs[0]).toEqual({
      nodes: [
        { id: "a", label: "Input" },
        { id: "b", label: "b" },
      ],
      edges: [{ from: "a", to: "b" }],
    });
  });

  it("notifies and reports bad input as a tool error", () => {
    const { seen, effects: fx } = effects();
    expect(runClientTool("ui_notify", { message: "Saved", level: "success" }, fx)).toEqual({
      ok: true,
      result: { shown: true },
    });
    expect(runClientTool("ui_notify", { message: "x", level: "loud" }, fx).ok).toBe(true);
    expect(seen.notes).toEqual(["success:Saved", "info:x"]);
    expect(runClientTool("ui_notify", {}, fx)).toEqual({ ok: false, error: "message: expected a string" });
    expect(runClientTool("ui_show_graph", null, fx)).toEqual({
      ok: false,
      error: "nodes: expected an array",
    });
    expect(runClientTool("rm_rf", {}, fx)).toEqual({ ok: false, error: "unknown client tool rm_rf" });
  });
});

describe("small client pieces", () => {
  it("names the connection for the header: the first attempt connects, a later one reconnects", () => {
    expect(connectionStatus({ status: "connecting", attempt: 0 })).toBe("connecting");
    expect(connectionStatus({ status: "open" })).toBe("open");
    expect(connectionStatus({ status: "offline", attempt: 1, retryAt: 0 })).toBe("reconnecting");
    expect(connectionStatus({ status: "connecting", attempt: 2 })).toBe("reconnecting");
    expect(connectionStatus({ status: "closed" })).toBe("closed");
  });

  it("reads bare and wrapped lists", () => {
    expect(unwrap([1], "threads")).toEqual([1]);
    expect(unwrap({ threads: [2] }, "threads")).toEqual([2]);
    expect(() => unwrap({ code: "x" }, "threads")).toThrow(/no threads list/);
  });

  it("round-trips routes", () => {
    for (const hash of ["#/", "#/t/th_1", "#/editor", "#/editor/th%2F2"])
      expect(routeHash(parseRoute(hash))).toBe(hash);
    expect(parseRoute("")).toEqual({ page: "chat" });
    expect(parseRoute("#/editor/th%2F2")).toEqual({ page: "editor", threadId: "th/2" });
  });

  it("allows only web and mail links", () => {
    expect(safeHref(" https://x.example/a ")).toBe("https://x.example/a");
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c");
    for (const bad of [
      "javascript:alert(1)",
      "JavaScript:x",
      "data:text/html,x",
      "vbscript:x",
      "/relative",
      "//evil.example",
    ]) {
      expect(safeHref(bad)).toBeUndefined();
    }
  });

  it("reads content text like the protocol package does", () => {
    const samples = [
      null,
      "plain",
      [
        { type: "text" as const, text: "a" },
        { type: "image" as const, uri: "https://i", mime_type: "image/png" },
        { type: "text" as const, text: "b" },
      ],
    ];
    for (const s of samples) expect(contentText(s)).toBe(protocolContentText(s));
  });
});
