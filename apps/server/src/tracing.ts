import { DiagLogLevel, diag, type Tracer } from "@opentelemetry/api";
import type { Logger } from "pino";
import type { Config } from "./config.js";

/** A started trace pipeline: the tracer turns are traced with, and its shutdown (flushes what is queued). */
export type Tracing = { tracer: Tracer; shutdown: () => Promise<void> };

/**
 * Starts exporting spans over OTLP/HTTP in batches. The SDK is loaded here only, so a server without
 * an OTLP endpoint never loads it. The standard OTEL_* variables still apply: headers, timeout and
 * compression (the exporter), OTEL_BSP_* (the batches), OTEL_TRACES_SAMPLER*, OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES (which win over `service.name=agentwire` and INSTANCE_ID).
 */
export async function startTracing(
  settings: NonNullable<Config["tracing"]>,
  logger: Logger,
): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  // Failed exports are otherwise silent. Only the SDK's message is logged: its arguments may hold requests.
  const warn = (message: string) => logger.warn({ otel: message }, "OpenTelemetry");
  const quiet = () => {};
  diag.setLogger(
    { error: warn, warn, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        "service.name": "agentwire",
        ...(settings.instanceId !== undefined && { "service.instance.id": settings.instanceId }),
      }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url }))],
  });
  logger.info("tracing turns over OTLP/HTTP");
  return {
    tracer: provider.getTracer("agentwire"),
    shutdown: async () => {
      try {
        await provider.shutdown();
      } catch (error) {
        logger.warn({ err: error }, "could not flush the last spans");
      }
    },
  };
}
