import { BudgetLimits, ModelSettings } from "@agentwire-chat/agents";
import { CONTEXT_KIND, PlanExecutionMode } from "@agentwire-chat/protocol";
import { z } from "zod";
import { ClassRules, type ContextKind } from "../tools/tool-policy.js";
import { configIssues, type ModelSettingsTable, mergeModelSettings } from "./model-settings-table.js";

const toolNames = z.array(z.string().min(1).max(200)).max(200);

const limitValue = z.number().int().positive();
/** Limits a scope replaces, named like BudgetLimits' (no defaults: an absent limit is the server's). */
const BudgetOverrides = z.strictObject(
  Object.fromEntries(Object.keys(BudgetLimits.shape).map((k) => [k, limitValue.optional()])) as Record<
    keyof BudgetLimits,
    z.ZodOptional<typeof limitValue>
  >,
);

/**
 * One context scope as the operator writes it: which built-in kind its policy rules and editor
 * tools start from, guidance for the system prompt, tools taken out of (or added to) the toolbelt,
 * class rules that replace its base's, create_plan's default mode, the provider and model its turns default to, budget
 * limits that replace the server's for its turns, and model settings over the model's own (MODEL_SETTINGS_FILE). Guidance reaches every level of the turn (subtasks,
 * plan steps, the planner and the reviewer), not only the root.
 */
export const ContextScopeConfig = z.strictObject({
  base: z.enum(["thread", "editor"]).default("thread"),
  guidance: z.string().min(1).max(20_000).optional(),
  tools: z.strictObject({ add: toolNames.optional(), remove: toolNames.optional() }).optional(),
  classes: ClassRules.optional(),
  plan_mode: PlanExecutionMode.optional(),
  // The scope's model: replaces the server's default; a chat_message that names its own still wins.
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
  // Positive integers like the environment's; an operator may raise or lower them.
  budget: BudgetOverrides.optional(),
  // Key by key over the model's MODEL_SETTINGS_FILE entry; at every level and helper call of the turn.
  model_settings: ModelSettings.optional(),
});
export type ContextScopeConfig = z.output<typeof ContextScopeConfig>;

/** The file CONTEXT_SCOPES_FILE names: scopes by the `chat_context.kind` that selects them. */
export const ContextScopesConfig = z.strictObject({
  scopes: z.record(
    z.string().regex(CONTEXT_KIND, "a scope name is 1-64 lowercase letters, digits, _ or -"),
    ContextScopeConfig,
  ),
});
export type ContextScopesConfig = z.input<typeof ContextScopesConfig>;

/** A resolved scope: what a turn in it runs with. */
export type ContextScope = {
  kind: string;
  base: ContextKind;
  guidance?: string;
  add: readonly string[];
  remove: readonly string[];
  /** Rules replacing the base kind's for these classes (a user's locked classes stay off). */
  classes: ClassRules;
  planMode?: PlanExecutionMode;
  provider?: string;
  model?: string;
  budget: Partial<BudgetLimits>;
  /** Settings over the model's table entry (the client cannot set them). */
  modelSettings?: ModelSettings;
};

const builtins: Record<ContextKind, ContextScope> = {
  thread: { kind: "thread", base: "thread", add: [], remove: [], classes: {}, budget: {} },
  editor: { kind: "editor", base: "editor", add: [], remove: [], classes: {}, budget: {} },
};

/** The context scopes of the server: the built-ins `thread` and `editor` and the operator's own. */
export class ContextScopes {
  /** Use `from` or `parseContextScopes`: they validate the operator's config first. */
  constructor(private readonly byKind: ReadonlyMap<string, ContextScope>) {}

  /** Built-ins only (today's behaviour), or with the operator's scopes (already validated). */
  static from(config: ContextScopesConfig = { scopes: {} }): ContextScopes {
    const parsed = parseContextScopes(config);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.value;
  }

  /** The scope `chat_context.kind` names, or undefined (the message is a bad_request). */
  get(kind: string): ContextScope | undefined {
    return this.byKind.get(kind);
  }

  /**
   * The scope a turn runs in; a waiting turn whose scope left the config since it began falls back to
   * its built-in base (`editor` or `thread`) rather than failing on resume.
   */
  forTurn(kind: string): ContextScope {
    return this.byKind.get(kind) ?? { ...builtins[kind === "editor" ? "editor" : "thread"], kind };
  }

  /** Every kind a client may send. */
  kinds(): string[] {
    return [...this.byKind.keys()];
  }

  /**
   * The model defaults of a turn in a scope: the scope's provider and model replace the server's
   * (a scope naming only a model keeps the server's provider); the message's own choice still wins.
   */
  defaultsFor<D extends { provider?: string | undefined; model?: string | undefined }>(
    defaults: D,
    kind: string,
  ): D {
    const scope = this.byKind.get(kind);
    if (scope?.provider === undefined && scope?.model === undefined) return defaults;
    if (scope.provider !== undefined && scope.provider !== defaults.provider)
      return { ...defaults, provider: scope.provider, model: scope.model };
    return { ...defaults, ...(scope.model !== undefined && { model: scope.model }) };
  }

  /** The limits of a turn in a scope: the server's, with the scope's overrides replacing them. */
  limitsFor(limits: BudgetLimits, kind: string): BudgetLimits {
    const budget = this.byKind.get(kind)?.budget;
    return budget && Object.keys(budget).length > 0 ? { ...limits, ...budget } : limits;
  }

  /**
   * The model settings of a turn in a scope on a model: the model's table entry with the scope's
   * `model_settings` replacing it key by key; undefined when neither sets any.
   */
  settingsFor(
    table: ModelSettingsTable | undefined,
    kind: string,
    who: { provider?: string | undefined; model?: string | undefined },
  ): ModelSettings | undefined {
    return mergeModelSettings(table?.lookup(who.provider, who.model), this.byKind.get(kind)?.modelSettings);
  }
}

/**
 * Validates the operator's scopes (parsed JSON); the message names each bad field, for a start-up
 * error. A built-in may get guidance, tools, a plan mode or a budget but keeps its own base.
 */
export function parseContextScopes(
  json: unknown,
): { ok: true; value: ContextScopes } | { ok: false; message: string } {
  const parsed = ContextScopesConfig.safeParse(json);
  if (!parsed.success) {
    return { ok: false, message: configIssues(parsed.error) };
  }
  const byKind = new Map<string, ContextScope>(Object.entries(builtins));
  for (const [kind, config] of Object.entries(parsed.data.scopes)) {
    const builtin = builtins[kind as ContextKind];
    if (builtin && config.base !== builtin.base)
      return { ok: false, message: `scopes.${kind}.base: the built-in ${kind} scope is based on ${kind}` };
    byKind.set(kind, {
      kind,
      base: config.base,
      ...(config.guidance !== undefined && { guidance: config.guidance }),
      add: config.tools?.add ?? [],
      remove: config.tools?.remove ?? [],
      classes: config.classes ?? {},
      ...(config.plan_mode !== undefined && { planMode: config.plan_mode }),
      ...(config.provider !== undefined && { provider: config.provider }),
      ...(config.model !== undefined && { model: config.model }),
      budget: config.budget ?? {},
      ...(config.model_settings !== undefined && { modelSettings: config.model_settings }),
    });
  }
  return { ok: true, value: new ContextScopes(byKind) };
}
