/**
 * Fuzz cases for `client_tools_manifest` that pass its schema: specs the UI tool proxy must refuse
 * (`bad_request`), and random schemas it may accept (no answer) or refuse, never anything else.
 */
import fc from "fast-check";
import { echoOf, envelope, jsonCase, requestId } from "./fuzz-case.js";
import { withKey } from "./fuzz-json.js";
import { hostileKey, longString, okSchema, okSpecs, pollutingValue } from "./fuzz-values.js";

const reservedName = fc.constantFrom(
  "ask_user",
  "run_subtask",
  "write_file",
  "web_fetch",
  "a__b",
  "mcp__tool",
);
const refusedSchema = fc.constantFrom<Record<string, unknown>>(
  { type: "string" },
  {},
  { type: ["object"] },
  { properties: {} },
  { type: "object", properties: 5 },
  { type: "object", required: "a" },
  { type: "object", minProperties: -1 },
  { type: "object", $ref: "#/definitions/nope" },
  { type: "object", $ref: "https://example.invalid/schema.json" },
  { type: "object", $async: true },
  { type: "object", properties: { a: { type: "string", pattern: "(a+)+$" } } },
  { type: "object", patternProperties: { "^x": { type: "string" } } },
);
/** A spec the schema accepts and the proxy refuses: a taken name, a bad or oversized schema. */
const refusedSpec = fc.oneof(
  {
    weight: 3,
    arbitrary: reservedName.map((name) => ({ name, description: "", input_schema: { type: "object" } })),
  },
  {
    weight: 6,
    arbitrary: refusedSchema.map((input_schema) => ({ name: "ui_refused", description: "", input_schema })),
  },
  {
    weight: 1,
    arbitrary: longString(66_000, 200_000).map((d) => ({
      name: "ui_big",
      description: "",
      input_schema: { type: "object", description: d },
    })),
  },
);
export const refusedManifest = fc
  .oneof(
    fc.tuple(okSpecs, refusedSpec, okSpecs).map(([a, bad, b]) => [...a, bad, ...b]),
    okSpecs.filter((s) => s.length > 0).map((s) => [...s, s[0]]),
  )
  .chain((tools) =>
    requestId.map((rid) =>
      jsonCase(
        "refused manifest",
        envelope("client_tools_manifest", { tools }, rid),
        ["bad_request"],
        echoOf(rid),
      ),
    ),
  );

const schemaKey = fc.oneof(
  fc.constantFrom(
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "not",
    "if",
    "then",
    "$ref",
    "$defs",
    "minimum",
    "maxLength",
    "pattern",
    "format",
    "$async",
    "$id",
    "$schema",
    "default",
    "propertyNames",
    "unevaluatedProperties",
    "$data",
  ),
  hostileKey,
);
/** A manifest whose schemas are random: accepted (nothing) or refused, never anything else. */
export const randomManifest = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.stringMatching(/^ui_[a-z]{1,8}$/),
        fc.dictionary(schemaKey, fc.oneof(fc.jsonValue({ maxDepth: 3 }), okSchema, pollutingValue), {
          maxKeys: 4,
        }),
        fc.boolean(),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    requestId,
  )
  .map(([specs, rid]) => {
    const tools = specs.map(([name, schema, typed]) => ({
      name,
      description: "",
      input_schema: typed ? withKey(schema, "type", "object") : schema,
    }));
    return jsonCase(
      "random manifest",
      envelope("client_tools_manifest", { tools }, rid),
      ["none", "bad_request"],
      echoOf(rid),
    );
  });
