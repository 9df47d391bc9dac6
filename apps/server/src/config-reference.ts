import type { z } from "zod";
import { type ConfigDoc, configGroups } from "./config-groups.js";
import { outsideSchemaVariables } from "./env-outside-schema.js";
import { EnvSchema } from "./env-schema.js";

/** One variable as the reference shows it. */
export interface ConfigEntry {
  name: string;
  group: ConfigDoc["group"];
  type: string;
  default: string;
  description: string;
}

type Schema = z.core.$ZodType;

const INTRO =
  "The server reads its configuration from environment variables, once, at start-up. An empty value counts as unset. " +
  "Every value is validated: a bad one stops the process with exit code 1 and a message naming each offending variable, " +
  "never repeating a secret's value. Defaults below come from the schema in apps/server/src/env-schema.ts.";

/** Every variable the server reads: EnvSchema's keys, then those read outside it, in group order. */
export function configEntries(): ConfigEntry[] {
  const fromSchema = Object.entries(EnvSchema.shape).map(([name, schema]) => entryOf(name, schema));
  const all = [...fromSchema, ...outsideSchemaVariables];
  return configGroups.flatMap((group) => all.filter((entry) => entry.group === group.id));
}

/** The `.meta()` a variable's schema carries (group, description, type and computed-default hints). */
export function configDocOf(schema: Schema): Partial<ConfigDoc> {
  return (schema as z.ZodType).meta() ?? {};
}

function entryOf(name: string, schema: Schema): ConfigEntry {
  const meta = configDocOf(schema);
  // A variable without documentation is a bug the reference must not hide (a test checks every key).
  if (meta.group === undefined || !configGroups.some((g) => g.id === meta.group) || !meta.description)
    throw new Error(`${name}: its schema needs .meta({ group, description }) with a known group`);
  return {
    name,
    group: meta.group,
    type: meta.type ?? typeOf(schema),
    default: defaultOf(schema, meta.computed === true),
    description: meta.description,
  };
}

/** The value type a person sets, read from the zod definition through its wrappers. */
function typeOf(schema: Schema): string {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case "default":
    case "prefault":
    case "optional":
      return typeOf(def.innerType as Schema);
    case "pipe":
      return typeOf(def.in as Schema);
    case "number":
      return numberType(def.checks ?? []);
    case "enum": {
      const values = Object.values(def.entries as Record<string, string>);
      const booleanish = values.every((v) => ["true", "false", "1", "0"].includes(v));
      return booleanish ? "boolean (true/false or 1/0)" : `one of: ${values.join(", ")}`;
    }
    case "string":
      return def.format === "url" ? "URL (http, https)" : "text";
    default:
      return "text";
  }
}

/** "integer 0 to 65535", "positive integer", "number 0 to 1": the bounds the schema's checks enforce. */
function numberType(checks: z.core.$ZodCheck[]): string {
  let integer = false;
  let min: number | undefined;
  let max: number | undefined;
  let positive = false;
  for (const check of checks) {
    const def = check._zod.def as { check: string; format?: string; value?: number; inclusive?: boolean };
    if (def.check === "number_format" && def.format === "safeint") integer = true;
    else if (def.check === "greater_than" && def.inclusive) min = def.value;
    else if (def.check === "greater_than" && def.value === 0) positive = true;
    else if (def.check === "less_than" && def.inclusive) max = def.value;
  }
  const kind = integer ? "integer" : "number";
  if (positive) return max === undefined ? `positive ${kind}` : `positive ${kind} up to ${max}`;
  if (min !== undefined && max !== undefined) return `${kind} ${min} to ${max}`;
  if (min !== undefined) return `${kind} of at least ${min}`;
  return kind;
}

/** The schema's default as text, "unset" when it has none; `computed` defaults defer to the description. */
function defaultOf(schema: Schema, computed: boolean): string {
  const value = defaultValueOf(schema);
  if (value === undefined) return computed ? "computed" : "unset";
  const text = Array.isArray(value) ? (value.length === 0 ? "empty" : value.join(",")) : String(value);
  return computed ? `${text}, or computed` : text;
}

function defaultValueOf(schema: Schema): unknown {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  if (def.type === "default") return def.defaultValue;
  if (def.type === "pipe") return defaultValueOf(def.in as Schema);
  return undefined;
}

/** docs/configuration.md: a title, how values are read, then a table per group. */
export function renderConfigMarkdown(entries: ConfigEntry[] = configEntries()): string {
  // A pipe would end the cell; a bare <NAME> would be read as an HTML tag and vanish.
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/</g, "&lt;");
  const lines = [
    "# Configuration",
    "",
    "<!-- Generated from the server's schema by `pnpm config:doc`; `pnpm config:check` fails when stale. -->",
    "",
    INTRO,
    "",
  ];
  for (const group of configGroups) {
    lines.push(`## ${group.title}`, "", "| Variable | Type | Default | Meaning |", "|---|---|---|---|");
    for (const e of entries.filter((entry) => entry.group === group.id))
      lines.push(
        `| \`${e.name}\` | ${cell(e.type)} | ${cell(codeUnlessWord(e.default))} | ${cell(e.description)} |`,
      );
    lines.push("");
  }
  return lines.join("\n");
}

/** A default as code (`8787`), except the words that say there is none or where it comes from. */
function codeUnlessWord(text: string): string {
  if (/^(unset|empty|computed|SDK default)$/.test(text)) return text;
  const computed = /^(.*), or computed$/.exec(text);
  return computed ? `\`${computed[1]}\`, or computed` : `\`${text}\``;
}

/** The same reference for a terminal (`--help`, `agentwire config`): grouped, one entry per variable. */
export function renderConfigText(entries: ConfigEntry[] = configEntries()): string {
  const lines = ["agentwire server configuration (environment variables)", "", ...wrap(INTRO, 0), ""];
  for (const group of configGroups) {
    lines.push(group.title.toUpperCase());
    for (const e of entries.filter((entry) => entry.group === group.id)) {
      lines.push(`  ${e.name}  (${e.type}; default: ${e.default})`, ...wrap(e.description, 6));
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** Words wrapped to 100 columns at the given indent. */
function wrap(text: string, indent: number): string[] {
  const width = 100 - indent;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => " ".repeat(indent) + l);
}
