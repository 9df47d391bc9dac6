import {
  abortedStatus,
  generateMedia,
  type LoopContext,
  type MediaGenerator,
  type MediaOptions,
  type MediaOutcome,
  parseMediaOptions,
} from "@agentwire-chat/agents";
import { AgentwireError, type ChatMessageData, contentText } from "@agentwire-chat/protocol";
import type { AssetRow } from "@agentwire-chat/storage";
import type { TurnSource, TurnSourceResult } from "../turns/drive-turn.js";
import { countedUsage } from "../turns/end-turn.js";
import { startTurn } from "../turns/start-turn.js";
import type { TurnSegment, TurnServices } from "../turns/turn-segment.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { AssetTooLargeError, assetUrl, DEFAULT_MAX_ASSET_BYTES, storeAsset } from "./asset-store.js";
import type { MediaServices } from "./media-services.js";

/**
 * The media route: `chat_message {media_generation: {mode: "image"|"speech", ...}}`. Options and the
 * provider's capability are checked before anything is stored (`bad_request` naming the field or the
 * provider); then a turn stores the user message, generates through the provider's MediaGenerator,
 * writes each file under the data directory with an `assets` row, and stores the assistant message
 * with a markdown link to each asset (`/api/assets/<id>`).
 */
export async function runMediaTurn(
  data: ChatMessageData,
  conn: ConnectionContext,
  services: { turns: TurnServices; media: MediaServices | undefined },
  requestId?: string,
): Promise<void> {
  const { media } = services;
  if (!media) throw new AgentwireError("unavailable", "media generation is not enabled on this server");
  // Without a provider named, the first configured media generator serves (the chat default may
  // be a provider that has none).
  const fallback = media.generators[0]?.providerId;
  const parsed = parseMediaOptions(data.media_generation, {
    text: contentText(data.content),
    ...((data.provider ?? fallback) !== undefined && { provider: data.provider ?? fallback }),
    ...(data.model !== undefined && { model: data.model }),
  });
  if (!parsed.ok) throw new AgentwireError("bad_request", parsed.error.message);
  const options = parsed.value;
  const providerId = options.provider ?? "";
  const generator = media.generators.find((g) => g.providerId === providerId);
  const can = options.mode === "image" ? generator?.generateImage : generator?.generateSpeech;
  if (!can) {
    const what = options.mode === "image" ? "generate images" : "generate speech";
    throw new AgentwireError(
      "bad_request",
      `media_generation.provider: provider "${providerId}" cannot ${what}`,
    );
  }
  const who = { provider: providerId, model: options.model ?? "default" };
  // The socket's frame queue does not wait for the generation (the driver runs on): `stop` gets through.
  await startTurn(conn, services.turns, data, {
    who,
    requestId,
    admission: "none",
    start: (run) => async (ctx) => generation(run, media, options, ctx),
    // No checkpoint to continue from: a shutdown interrupts it.
    drive: { continuable: false },
  });
}

/** The media turn as a source of the turn driver: generates, stores the assets, returns the answer. */
async function* generation(
  run: TurnSegment,
  media: MediaServices,
  options: MediaOptions,
  ctx: LoopContext,
): TurnSource {
  const { turn } = run;
  yield { type: "agent_state", state: "executing", detail: `${options.mode} generation` };
  run.logger.info({ provider: options.provider, mode: options.mode }, "media turn started");
  // The driver's budget holds the turn's wall clock: its breach cancels the generation.
  const signal = AbortSignal.any([turn.abort.signal, ctx.budget.signal]);
  const usage = countedUsage({ toolCalls: 0 }, false);
  const ended = (result: Omit<TurnSourceResult, "messages" | "usage">): TurnSourceResult => ({
    ...result,
    messages: [],
    usage,
  });
  const generators = new Map<string, MediaGenerator>(media.generators.map((g) => [g.providerId, g]));
  let outcome: MediaOutcome;
  try {
    outcome = await generateMedia(generators, options, signal);
  } catch (error) {
    run.logger.error({ err: error }, "media generation threw");
    outcome = { ok: false, error: { kind: "provider_error", message: "media generation failed" } };
  }

  if (!outcome.ok) {
    if (ctx.budget.breach) return ended({ status: "budget_exceeded", text: "" });
    if (outcome.error.kind === "cancelled" || turn.abort.signal.aborted) {
      return ended({ status: abortedStatus(turn.abort.signal), text: "" });
    }
    const error = { code: "provider_error" as const, message: outcome.error.message };
    return ended({ status: "error", text: "", error });
  }

  const stored: AssetRow[] = [];
  try {
    for (const asset of outcome.assets) {
      stored.push(
        await storeAsset(
          run.repos,
          {
            dataDir: media.dataDir,
            userId: turn.userId,
            threadId: turn.threadId,
            maxBytes: media.maxAssetBytes ?? DEFAULT_MAX_ASSET_BYTES,
          },
          asset,
        ),
      );
    }
  } catch (error) {
    const tooLarge = error instanceof AssetTooLargeError;
    if (!tooLarge) run.logger.error({ err: error }, "could not store a generated asset");
    const message = tooLarge ? error.message : "could not store the generated file";
    const code = tooLarge ? ("provider_error" as const) : ("internal" as const);
    return ended({ status: "error", text: assetText(options, stored), error: { code, message } });
  }
  run.logger.info({ assets: stored.map((a) => a.id) }, "media turn ended");
  return ended({ status: "complete", text: assetText(options, stored) });
}

/** The assistant message: one markdown link per asset (an image link for images). */
export function assetText(options: MediaOptions, assets: readonly AssetRow[]): string {
  if (options.mode === "image") {
    return assets.map((a, i) => `![Generated image ${i + 1}](${assetUrl(a.id)})`).join("\n\n");
  }
  return assets.map((a) => `[Generated speech (${a.mimeType})](${assetUrl(a.id)})`).join("\n\n");
}
