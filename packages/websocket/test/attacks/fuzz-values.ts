/**
 * Field-level arbitraries for the frame fuzzer: hostile strings, values of the wrong type, keys that
 * target prototypes, deep nesting, and for each command field a valid and a certainly-invalid value
 * (per the zod schemas in @agentwire-chat/protocol).
 */
import { isPrintable } from "@agentwire-chat/protocol";
import fc from "fast-check";
import { deepJson, objectOf, RawJson } from "./fuzz-json.js";

/** One "character": mostly ordinary, sometimes a lone surrogate, NUL, BOM, RTL override, quote, backslash. */
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "\ud800",
      "\udfff",
      "\u0000",
      "\u202e",
      "\ufeff",
      "\u2028",
      '"',
      "\\",
      "😀",
      "é",
    ),
  },
);

/** A short hostile string of `min`..`max` characters (each one or two UTF-16 units). */
export const text = (min: number, max: number) => fc.string({ unit, minLength: min, maxLength: max });

/**
 * A string of exactly min..max characters (code points, which is what the schemas' max lengths count)
 * repeating one; at most 130,000, so its JSON (6 bytes per escaped character at worst) stays under the
 * 1 MiB frame limit.
 */
export const hugeString = (min: number, max: number) =>
  fc
    .tuple(fc.constantFrom("a", "é", "😀", "\u0000", "\ud800", '"', "<"), fc.integer({ min, max }))
    .map(([c, n]) => c.repeat(n));

export const HUGE_MAX = 130_000;

/** A string of exactly `min`..`max` ASCII letters (over a schema's max length). */
export const longString = (min: number, max: number) => fc.integer({ min, max }).map((n) => "t".repeat(n));

/** Nesting a little (2..80 levels) or far too deep (1,000..12,000 levels). */
export const deepValue: fc.Arbitrary<RawJson> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 2, max: 80 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }) },
    ),
    fc.constantFrom("array", "object", "mixed") as fc.Arbitrary<"array" | "object" | "mixed">,
  )
  .map(([depth, style]) => deepJson(depth, style));

/** Keys aimed at prototypes and at sloppy key handling. */
export const hostileKey = fc.oneof(
  {
    weight: 24,
    arbitrary: fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "__defineGetter__",
      "then",
      "",
      " command",
      "Command",
      "requestId",
      "\u0000",
      "\ud800",
    ),
  },
  { weight: 15, arbitrary: text(1, 20) },
  { weight: 1, arbitrary: hugeString(4_001, 20_000) },
);

/** Values meant to pollute Object.prototype if anything copies them carelessly. */
export const pollutingValue: fc.Arbitrary<unknown> = fc.constantFrom(
  objectOf([["__proto__", { aw_polluted: true }]]),
  objectOf([["constructor", { prototype: { aw_polluted: true } }]]),
  objectOf([["__proto__", objectOf([["__proto__", { aw_polluted: true }]])]]),
);

/** Free-form JSON: shallow values, hostile keys, deep nesting. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: pollutingValue },
  { weight: 1, arbitrary: deepValue },
  {
    weight: 1,
    arbitrary: fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => objectOf([[k, v]])),
  },
);

/** Anything but a string. */
export const notString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant({}),
  pollutingValue,
  deepValue,
);

/** Anything but a boolean. */
const notBoolean = fc.oneof(
  fc.constantFrom<unknown>("true", "false", 0, 1, null, [], {}),
  fc.constant(new RawJson("1e400")),
);

/** Anything but a JSON object. */
export const notObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>([], "x", 1, true, null, [{}]),
  deepValue.filter((v) => v.text.startsWith("[")),
);

/** A valid field value, and values that certainly fail the field's schema (none for free-form fields). */
export type FieldSpec = { valid: fc.Arbitrary<unknown>; wrong?: fc.Arbitrary<unknown>; required?: true };

/** Ids, provider and model names may not hold control characters (they are stored and looked up as is). */
export const printableText = (min: number, max: number) => text(min, max).filter(isPrintable);
const withControl = fc
  .tuple(text(0, 10), fc.constantFrom("\u0000", "\n", "\u001b", "\u007f"), text(0, 10))
  .map(([a, c, b]) => `${a}${c}${b}`);

const idValid = fc.oneof(
  { weight: 5, arbitrary: printableText(1, 40) },
  { weight: 1, arbitrary: longString(150, 200) },
);
const idWrong = fc.oneof(
  { weight: 6, arbitrary: notString },
  { weight: 2, arbitrary: withControl },
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 3, arbitrary: longString(201, 400) },
  { weight: 1, arbitrary: hugeString(4_001, HUGE_MAX) },
);
const id: FieldSpec = { valid: idValid, wrong: idWrong };
const requiredId: FieldSpec = { ...id, required: true };

/** A string under `max` units, sometimes huge; a wrong one is not a string or is over `max`. */
function boundedText(max: number): FieldSpec {
  return {
    valid: fc.oneof({ weight: 30, arbitrary: text(0, 50) }, { weight: 1, arbitrary: hugeString(4_001, max) }),
    wrong: fc.oneof(
      { weight: 3, arbitrary: notString },
      { weight: 1, arbitrary: hugeString(max + 1, Math.max(max + 1, HUGE_MAX)) },
    ),
  };
}

const textPart = fc.record({ type: fc.constant("text"), text: text(0, 40) });
const imagePart = fc.oneof(
  fc.record({ type: fc.constant("image"), uri: text(1, 40), mime_type: text(1, 20) }),
  fc.record({ type: fc.constant("image"), data: text(1, 40), mime_type: text(1, 20) }),
);
const part = fc.oneof(textPart, imagePart);
const badPart = fc.oneof(
  fc.constantFrom<unknown>(
    { type: "text" },
    { type: "text", text: 1 },
    { type: "image", mime_type: "image/png" },
    { type: "image", uri: "u", data: "d", mime_type: "image/png" },
    { type: "image", uri: "", mime_type: "image/png" },
    { type: "video", uri: "u" },
    "text",
    null,
  ),
  fc.tuple(textPart, hostileKey).map(([p, k]) => objectOf([...Object.entries(p), [k, 1]])),
);

const content: FieldSpec = {
  required: true,
  valid: fc.oneof(
    { weight: 20, arbitrary: text(0, 60) },
    { weight: 1, arbitrary: hugeString(4_001, HUGE_MAX) },
    { weight: 3, arbitrary: fc.array(part, { minLength: 1, maxLength: 4 }) },
  ),
  wrong: fc.oneof(
    fc.constantFrom<unknown>(1, true, null, {}, [], { type: "text", text: "x" }),
    fc.tuple(fc.array(part, { maxLength: 2 }), badPart).map(([ok, bad]) => [...ok, bad]),
    deepValue,
  ),
};

/** A provider name: the configured `scripted` or one the server does not know (hint-table names too). */
const providerValid = fc.oneof(
  { weight: 3, arbitrary: fc.constant("scripted") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("constructor", "__proto__", "toString", "openai", "anthropic", "Scripted"),
  },
  { weight: 2, arbitrary: printableText(1, 30).filter((p) => p !== "scripted") },
);

const mediaValid = fc
  .tuple(
    fc.constantFrom("chat", "image", "speech"),
    fc.dictionary(hostileKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  )
  .map(([mode, options]) =>
    objectOf([...Object.entries(options).filter(([k]) => k !== "mode"), ["mode", mode]]),
  );

/** The fields of chat_message.data. */
export const chatFields: Record<string, FieldSpec> = {
  content,
  thread_id: id,
  provider: {
    valid: providerValid,
    wrong: fc.oneof(notString, fc.constant(""), longString(101, 300), withControl),
  },
  model: {
    valid: printableText(1, 40),
    wrong: fc.oneof(notString, fc.constant(""), longString(201, 300), withControl),
  },
  chat_context: {
    valid: fc.oneof(
      fc.constant({ kind: "thread" }),
      idValid.map((workflow_id) => ({ kind: "editor", workflow_id })),
    ),
    wrong: fc.oneof(
      fc.constantFrom<unknown>(
        "thread",
        { kind: "other" },
        { kind: "editor" },
        { kind: "editor", workflow_id: "" },
        { kind: "thread", workflow_id: "w" },
        {},
      ),
      notObject,
    ),
  },
  workflow_target: {
    valid: fc.constant("workflow"),
    wrong: fc.oneof(
      text(0, 20).filter((t) => t !== "workflow"),
      notString,
    ),
  },
  workflow_id: id,
  media_generation: {
    valid: mediaValid,
    wrong: fc.oneof(fc.constantFrom<unknown>({}, { mode: "video" }, { mode: 1 }, { mode: null }), notObject),
  },
  memory_enabled: { valid: fc.boolean(), wrong: notBoolean },
  // null is a valid parent (a new first message): only the other wrong ids are wrong here.
  parent_message_id: {
    valid: fc.oneof(idValid, fc.constant(null)),
    wrong: idWrong.filter((v) => v !== null),
  },
  on_busy: {
    valid: fc.constantFrom("reject", "queue", "steer", "interrupt"),
    wrong: fc.oneof(
      text(0, 20).filter((t) => !["reject", "queue", "steer", "interrupt"].includes(t)),
      notString,
    ),
  },
  agent_mode: { valid: anyJson },
  tools: { valid: anyJson },
  collections: { valid: anyJson },
};

const okName = fc.stringMatching(/^ui_[a-z0-9-]{0,20}$/);
const simpleSchema = fc.constantFrom<unknown>(
  { type: "string", maxLength: 200 },
  { type: "number" },
  { type: "array", items: { type: "string" } },
  { type: "boolean", description: "x" },
  { enum: ["a", "b"] },
);
/** An input_schema ajv compiles and the proxy accepts. */
export const okSchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({ type: "object" }),
  fc
    .tuple(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), simpleSchema, { maxKeys: 4 }), fc.boolean())
    .map(([properties, closed]) => ({
      type: "object",
      properties,
      required: Object.keys(properties).slice(0, 1),
      additionalProperties: !closed,
    })),
);
/** Client tool specs the proxy accepts, with distinct names. */
export const okSpecs = fc.uniqueArray(
  fc.record({ name: okName, description: text(0, 60), input_schema: okSchema }),
  { maxLength: 4, selector: (s) => s.name },
);

const badSpecName = fc.oneof(
  fc.constantFrom<unknown>("", "1abc", "a b", "a.b", "é", "a".repeat(65), "ui/x"),
  notString,
);
/** Specs that fail the ClientToolSpec schema. */
export const schemaBadSpec: fc.Arbitrary<unknown> = fc.oneof(
  badSpecName.map((name) => ({ name, description: "d", input_schema: { type: "object" } })),
  fc
    .oneof(notString, longString(4_001, 6_000))
    .map((description) => ({ name: "ui_a", description, input_schema: {} })),
  fc.oneof(notObject, fc.constantFrom<unknown>("schema", 5)).map((input_schema) => ({
    name: "ui_a",
    description: "d",
    input_schema,
  })),
  fc.constantFrom<unknown>(
    { description: "d", input_schema: {} },
    { name: "ui_a", input_schema: {} },
    { name: "ui_a", description: "d" },
  ),
  hostileKey
    .filter((k) => !["name", "description", "input_schema"].includes(k))
    .map((k) =>
      objectOf([
        ["name", "ui_a"],
        ["description", "d"],
        ["input_schema", { type: "object" }],
        [k, 1],
      ]),
    ),
);

/** The fields of every command's data but chat_message (ping has none). */
export const commandFields: Record<string, Record<string, FieldSpec>> = {
  subscribe_threads: {},
  plan_decision: {
    thread_id: requiredId,
    plan_id: requiredId,
    decision: {
      required: true,
      valid: fc.constantFrom("approve", "revise"),
      wrong: fc.oneof(
        text(0, 20).filter((d) => !["approve", "revise"].includes(d)),
        fc.constant("APPROVE"),
        notString,
      ),
    },
    feedback: boundedText(100_000),
  },
  ping: {},
  stop: { thread_id: requiredId },
  continue_turn: { thread_id: requiredId },
  regenerate: { thread_id: requiredId, message_id: requiredId },
  cancel_queued: { thread_id: requiredId, message_id: requiredId },
  resume_chat: {
    thread_id: requiredId,
    last_seq: {
      required: true,
      valid: fc.nat(),
      wrong: fc.oneof(
        fc.integer({ max: -1 }),
        fc.double({ min: 0, max: 1e6, noNaN: true }).filter((x) => !Number.isInteger(x)),
        fc.constantFrom<unknown>("1", true, null, [], {}, 9007199254740994, new RawJson("1e400")),
      ),
    },
  },
  answer: {
    thread_id: requiredId,
    tool_call_id: requiredId,
    answer: { ...boundedText(100_000), required: true },
  },
  tool_approval_response: {
    approval_id: requiredId,
    decision: {
      required: true,
      valid: fc.constantFrom("allow", "allow_for_thread", "deny"),
      wrong: fc.oneof(
        text(0, 20).filter((d) => !["allow", "allow_for_thread", "deny"].includes(d)),
        fc.constant("ALLOW"),
        notString,
      ),
    },
  },
  client_tools_manifest: {
    tools: {
      required: true,
      valid: okSpecs,
      wrong: fc.oneof(
        fc.constantFrom<unknown>({}, "tools", null, 1),
        fc.constant(
          Array.from({ length: 65 }, (_, i) => ({ name: `ui_${i}`, description: "", input_schema: {} })),
        ),
        fc.tuple(okSpecs, schemaBadSpec).map(([ok, bad]) => [...ok, bad]),
      ),
    },
  },
  tool_result: {
    tool_call_id: requiredId,
    ok: { required: true, valid: fc.boolean(), wrong: notBoolean },
    result: { valid: anyJson },
    error: boundedText(100_000),
  },
};
