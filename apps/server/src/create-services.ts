import { pathToFileURL } from "node:url";
import { createProviderRegistry, type Provider } from "@agentwire/agents";
import { AgentwireMetrics, type AgentwireServices, createChatServices } from "@agentwire/websocket";
import type { Logger } from "pino";
import type { Config } from "./config.js";

/** The process's services, and the metrics that watch them. */
export type ProcessServices = { services: AgentwireServices; metrics: AgentwireMetrics };

/** Sources the metrics read at scrape time; bound once the server exists. */
export type MetricsBinding = { openSockets: () => number };

/** Builds the services command handlers use (providers, chat turns, metrics) from the config. */
export async function createServices(
  config: Config,
  logger: Logger,
  binding: MetricsBinding,
): Promise<ProcessServices> {
  const extra = await scriptedProvider(config, logger);
  const providers = createProviderRegistry(config.providers, {
    ...(extra && { extraProviders: [extra], extraDefaultModels: { [extra.id]: "scripted-1" } }),
  });
  const chat = createChatServices({
    providers,
    limits: config.budget,
    defaults: { provider: config.defaultProvider, model: config.defaultModel },
  });
  const metrics = new AgentwireMetrics({
    openSockets: () => binding.openSockets(),
    turns: () => {
      const active = chat.turns.active();
      const suspended = active.filter((t) => t.phase === "waiting_on_user").length;
      return { running: active.length - suspended, suspended };
    },
  });
  chat.observer = metrics;
  return { services: { chat }, metrics };
}

/**
 * AGENTWIRE_SCRIPTED_PROVIDER names a module whose default export is a ScriptedProvider: for tests,
 * benchmarks and demos only. Never set in production.
 */
async function scriptedProvider(config: Config, logger: Logger): Promise<Provider | undefined> {
  if (!config.scriptedProviderModule) return undefined;
  const mod = (await import(pathToFileURL(config.scriptedProviderModule).href)) as { default?: Provider };
  if (!mod.default || typeof mod.default.stream !== "function") {
    throw new Error("AGENTWIRE_SCRIPTED_PROVIDER must default-export a Provider");
  }
  logger.warn({ provider: mod.default.id }, "scripted provider enabled (tests and benchmarks only)");
  return mod.default;
}
