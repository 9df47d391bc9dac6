import { ModelSettings } from "@agentwire-chat/agents";
import { z } from "zod";

/** The file MODEL_SETTINGS_FILE names: settings per model, bare (`gpt-4o`) or per provider (`openai:gpt-4o`). */
export const ModelSettingsFile = z.strictObject({
  models: z.record(z.string().min(1).max(300), ModelSettings),
});
export type ModelSettingsFile = z.input<typeof ModelSettingsFile>;

/** The operator's settings per model (MODEL_SETTINGS_FILE); empty without the file. */
export class ModelSettingsTable {
  /** Use `parseModelSettingsTable`: it validates the operator's file first. */
  constructor(private readonly byKey: ReadonlyMap<string, ModelSettings> = new Map()) {}

  /** The entry of a model: `<provider>:<model>` beats the bare `<model>`; undefined when neither is set. */
  lookup(provider: string | undefined, model: string | undefined): ModelSettings | undefined {
    if (model === undefined) return undefined;
    return (
      (provider !== undefined ? this.byKey.get(`${provider}:${model}`) : undefined) ?? this.byKey.get(model)
    );
  }

  /** How many models have an entry (for the start-up summary). */
  get size(): number {
    return this.byKey.size;
  }
}

/** The settings a call runs with: the model's table entry, the scope's settings replacing it key by key. */
export function mergeModelSettings(
  model: ModelSettings | undefined,
  scope: ModelSettings | undefined,
): ModelSettings | undefined {
  if (model === undefined) return scope;
  if (scope === undefined) return model;
  return { ...model, ...scope };
}

/** Validates MODEL_SETTINGS_FILE's JSON; the message names each bad model and key, for a start-up error. */
export function parseModelSettingsTable(
  json: unknown,
): { ok: true; value: ModelSettingsTable } | { ok: false; message: string } {
  const parsed = ModelSettingsFile.safeParse(json);
  if (!parsed.success) return { ok: false, message: configIssues(parsed.error) };
  return { ok: true, value: new ModelSettingsTable(new Map(Object.entries(parsed.data.models))) };
}

/**
 * An operator file's problems, one per bad field, each led by its path: an unknown key reads
 * `scopes.editor.model_settings: unrecognized key "temprature"` (a typo names itself).
 */
export function configIssues(error: z.ZodError): string {
  const lines = error.issues.flatMap((issue) => {
    const where = issue.path.map(String).join(".") || "(file)";
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => `${where}: unrecognized key ${JSON.stringify(key)}`);
    return [`${where}: ${issue.message}`];
  });
  return lines.join("; ");
}
