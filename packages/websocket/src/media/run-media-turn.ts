import {
  abortedStatus,
  generateMedia,
  type MediaGenerator,
  type MediaOptions,
  type MediaOutcome,
  parseMediaOptions,
} from "@agentwire/agents";
import { AgentwireError, type ChatMessageData, contentText } from "@agentwire/protocol";
import type { AssetRow } from "@agentwire/storage";
import { requireChat } from "../chat/chat-connection.js";
import type { ChatServices } from "../chat/chat-services.js";
import { beginTurn } from "../turns/begin-turn.js";
import { countedUsage, endTurn } from "../turns/end-turn.js";
import type { TurnRun } from "../turns/turn-run.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { AssetTooLargeError, assetUrl, DEFAULT_MAX_ASSET_BYTES, storeAsset } from "./asset-store.js";

type MediaServices = NonNullable<ChatServices["media"]>;

/**
 * Route 2: `chat_message {media_generation: {mode: "image"|"speech", ...}}`. Options and the
 * provider's capability are checked before anything is stored (`bad_request` naming the field or the
 * provider); then a turn stores the user message, generates through the provider's MediaGenerator,
 * writes each file under the data directory with an `assets` row, and stores the assistant message
 * with a markdown link to each asset (`/api/assets/<id>`).
 */
export async function runMediaTurn(
  data: ChatMessageData,
  conn: ConnectionContext,
  requestId?: string,
): Promise<void> {
  const chat = requireChat(conn);
  const media = chat.media;
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
  const run = await beginTurn(conn, chat, data, who, requestId);
  // The socket's frame queue must not wait for the generation: `stop` has to get through.
  void driveMedia(run, media, options);
}

/** Generates, stores the assets and ends the turn; never throws. */
async function driveMedia(run: TurnRun, media: MediaServices, options: MediaOptions): Promise<void> {
  const { turn, limits } = run;
  turn.emit({ type: "agent_state", state: "executing", detail: `${options.mode} generation` });
  run.logger.info({ provider: options.provider, mode: options.mode }, "media turn started");
  const budget = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    budget.abort("wall_clock");
  }, limits.MAX_WALL_CLOCK_MS);
  const started = performance.now();
  const signal = AbortSignal.any([turn.abort.signal, budget.signal]);
  const usage = countedUsage({ toolCalls: 0 }, false);
  const generators = new Map<string, MediaGenerator>(media.generators.map((g) => [g.providerId, g]));
  let outcome: MediaOutcome;
  try {
    outcome = await generateMedia(generators, options, signal);
  } catch (error) {
    run.logger.error({ err: error }, "media generation threw");
    outcome = { ok: false, error: { kind: "provider_error", message: "media generation failed" } };
  } finally {
    clearTimeout(timer);
  }

  if (!outcome.ok) {
    if (timedOut) {
      const limit = limits.MAX_WALL_CLOCK_MS;
      const observed = Math.max(limit, Math.round(performance.now() - started));
      turn.emit({ type: "budget_exceeded", reason: "wall_clock", limit, observed });
      await endTurn(run, { status: "budget_exceeded", usage }, "");
    } else if (outcome.error.kind === "cancelled" || turn.abort.signal.aborted) {
      await endTurn(run, { status: abortedStatus(turn.abort.signal), usage }, "");
    } else {
      const message = outcome.error.message;
      await endTurn(run, { status: "error", usage, error: { code: "provider_error", message } }, "");
    }
    return;
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
    await endTurn(run, { status: "error", usage, error: { code, message } }, assetText(options, stored));
    return;
  }
  run.logger.info({ assets: stored.map((a) => a.id) }, "media turn ended");
  await endTurn(run, { status: "complete", usage }, assetText(options, stored));
}

/** The assistant message: one markdown link per asset (an image link for images). */
export function assetText(options: MediaOptions, assets: readonly AssetRow[]): string {
  if (options.mode === "image") {
    return assets.map((a, i) => `![Generated image ${i + 1}](${assetUrl(a.id)})`).join("\n\n");
  }
  return assets.map((a) => `[Generated speech (${a.mimeType})](${assetUrl(a.id)})`).join("\n\n");
}
