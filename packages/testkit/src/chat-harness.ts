import { type BudgetLimits, createProviderRegistry, type Tool } from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedResponder, type ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { ServerFrame as ServerFrameSchema } from "@agentwire-chat/protocol";
import {
  AdmissionQueue,
  type BusySettings,
  type ChatServices,
  createChatServices,
  type SpendLimitSettings,
  type ToolPolicies,
  type ToolPolicyConfig,
  type TurnObserver,
  type UIToolProxy,
} from "@agentwire-chat/websocket";
import { expect } from "vitest";
import { startTestServer, type TestServer, type TestServerOptions } from "./harness.js";

export type ChatTestServer = TestServer & { provider: ScriptedProvider; chat: ChatServices };

/** A real server on an ephemeral port whose only provider is a ScriptedProvider (id `scripted`). */
export async function startChatServer(
  script: ScriptedStep[] | ScriptedResponder,
  options: Omit<TestServerOptions, "limits"> & {
    /** Turn budget limits (the server's socket limits are `serverLimits`). */
    limits?: Partial<BudgetLimits>;
    serverLimits?: TestServerOptions["limits"];
    policy?: Partial<ToolPolicyConfig>;
    /** Per-user policies (TOOL_POLICY_FILE's); replaces `policy`. */
    policies?: ToolPolicies;
    extraTools?: Tool[];
    editorTools?: Tool[];
    observer?: TurnObserver;
    /** Replaces the base server tools (ask_user, run_subtask); `extraTools` are still appended. */
    serverTools?: ChatServices["serverTools"];
    /** Client UI tools: `chat.clientTools`, `services.uiTools` and the tool_result/manifest handlers. */
    uiTools?: UIToolProxy;
    /**
     * The admission queue of new turns; by default one with the production limits that nothing ticks
     * (no lag, no batch bound), so every turn takes its fast path.
     */
    admission?: AdmissionQueue;
    /** Messages sent while a turn runs (BUSY_POLICY, QUEUE_MAX_PER_THREAD); absent: the defaults. */
    busy?: BusySettings;
    /** SPEND_LIMIT_* (with `policies`, the file's per-user limits too); absent: no spend limits. */
    spend?: SpendLimitSettings;
  } = {},
): Promise<ChatTestServer> {
  const provider = new ScriptedProvider(script);
  const providers = createProviderRegistry(
    {},
    { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
  );
  const base = createChatServices({
    providers,
    defaults: { provider: "scripted" },
    ...(options.serverTools && { serverTools: options.serverTools }),
  });
  const chat = createChatServices({
    providers,
    defaults: { provider: "scripted" },
    ...(options.limits && { limits: options.limits }),
    ...(options.policy && { policy: options.policy }),
    ...(options.policies && { policies: options.policies }),
    ...(options.serverTools && { serverTools: options.serverTools }),
    ...(options.extraTools && {
      serverTools: async (scope) => [...(await base.serverTools(scope)), ...(options.extraTools ?? [])],
    }),
    ...(options.uiTools && { clientTools: (scope) => options.uiTools?.clientTools(scope) ?? [] }),
    ...(options.editorTools && { editorTools: () => options.editorTools ?? [] }),
    ...(options.observer && { observer: options.observer }),
    admission: options.admission ?? new AdmissionQueue(),
    ...(options.busy && { busy: options.busy }),
    ...(options.spend && { spend: options.spend }),
  });
  const {
    limits: _budget,
    policy: _policy,
    policies: _policies,
    extraTools: _extra,
    editorTools: _editor,
    observer: _observer,
    serverTools: _serverTools,
    uiTools,
    serverLimits,
    admission: _admission,
    busy: _busy,
    spend: _spend,
    ...rest
  } = options;
  const server = await startTestServer({
    ...rest,
    ...(serverLimits && { limits: serverLimits }),
    services: { chat, ...(uiTools && { uiTools }) },
  });
  return Object.assign(server, { provider, chat });
}

/** The frames of one turn, from the first frame after `fromSeq` to the final `chunk {done:true}`. */
export function isDone(frame: ServerFrame): boolean {
  return frame.type === "chunk" && frame.done === true;
}

/** Every frame valid against the protocol; seq strictly +1 with no gaps; `done` exactly once, last. */
export function expectWellFormedTurn(frames: ServerFrame[], firstSeq = 1): void {
  for (const f of frames) expect(ServerFrameSchema.safeParse(f).success, JSON.stringify(f)).toBe(true);
  // Frames of the socket, not of the turn: no seq.
  const turnFrames = frames.filter(
    (f) => f.type !== "chat_resumed" && f.type !== "pong" && f.type !== "workflow_updated",
  );
  expect(turnFrames.map((f) => ("seq" in f ? f.seq : undefined))).toEqual(
    turnFrames.map((_, i) => firstSeq + i),
  );
  expect(turnFrames.filter(isDone)).toHaveLength(1);
  expect(isDone(turnFrames.at(-1) as ServerFrame)).toBe(true);
}

/** A promise with its resolve, for gating a scripted step. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}
