import type { ConfigGroup } from "./config-groups.js";

/** A variable read outside EnvSchema, documented here so the reference still lists it. */
export interface OutsideSchemaVariable {
  name: string;
  group: ConfigGroup;
  type: string;
  default: string;
  description: string;
}

/**
 * Variables the server reads without EnvSchema: names made from another variable's value
 * (`<NAME>_*` of OPENAI_COMPAT_ENDPOINTS, read in config.ts), variables read where they are used
 * (web-app.ts, mcp-pins-path.ts, the storage package's migrations folder), and the OpenTelemetry
 * SDK's own, which it reads itself once tracing is on (tracing.ts).
 */
export const outsideSchemaVariables: readonly OutsideSchemaVariable[] = [
  {
    name: "<NAME>_API_KEY",
    group: "providers",
    type: "secret text",
    default: "unset",
    description:
      "The API key of the compatible endpoint NAME of OPENAI_COMPAT_ENDPOINTS (upper-cased, - as _; e.g. OLLAMA_API_KEY), for an endpoint that needs one. Secret: never logged.",
  },
  {
    name: "<NAME>_MODEL",
    group: "providers",
    type: "text",
    default: "unset",
    description:
      "The default model of the compatible endpoint NAME (e.g. OLLAMA_MODEL=llama3.2), used when a message names the endpoint but no model and listed as its default_model by GET /api/providers.",
  },
  {
    name: "<NAME>_API",
    group: "providers",
    type: "one of: chat, responses",
    default: "chat",
    description:
      "The compatible endpoint's API, as OPENAI_API (e.g. AZURE_API=responses); set responses only where the server has /responses. Any other value refuses to start.",
  },
  {
    name: "WEB_DIST_DIR",
    group: "server",
    type: "path",
    default: "computed",
    description:
      "The built web client served at /. Unset: apps/web/dist found above the server's files; not built, no web client is served.",
  },
  {
    name: "AGENTWIRE_MIGRATIONS_DIR",
    group: "server",
    type: "path",
    default: "computed",
    description:
      "A folder holding sqlite/ and postgres/ migrations, over the storage package's dist/migrations and the repository's migrations/.",
  },
  {
    name: "MCP_PINS_PATH",
    group: "tools",
    type: "path",
    default: "computed",
    description:
      "JSON file of approved MCP tool-definition hashes (agentwire mcp approve NAME). Unset: mcp-pins.json beside the database.",
  },
  ...[
    ["OTEL_SERVICE_NAME", "The service.name of the spans, over agentwire."],
    [
      "OTEL_RESOURCE_ATTRIBUTES",
      "Resource attributes of the spans, key=value,key=value; they win over service.name=agentwire and INSTANCE_ID.",
    ],
    [
      "OTEL_EXPORTER_OTLP_HEADERS",
      "Headers of each OTLP export request, key=value,key=value (e.g. an API key).",
    ],
    ["OTEL_EXPORTER_OTLP_TIMEOUT", "Time limit of one OTLP export request, in milliseconds."],
    ["OTEL_EXPORTER_OTLP_COMPRESSION", "Compression of the OTLP export requests (gzip or none)."],
    ["OTEL_TRACES_SAMPLER", "Which spans are recorded (e.g. parentbased_traceidratio). Unset: every turn."],
    ["OTEL_TRACES_SAMPLER_ARG", "The sampler's argument (e.g. 0.1 for a ratio)."],
    [
      "OTEL_BSP_*",
      "The batch span processor's settings (OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, ...).",
    ],
  ].map(
    ([name, meaning]): OutsideSchemaVariable => ({
      name: name!,
      group: "observability",
      type: "text",
      default: "SDK default",
      description: `${meaning} Read by the OpenTelemetry SDK itself, only while tracing is on.`,
    }),
  ),
];
