import { z } from "zod";

// Proxies and older API revisions leave fields out; a weird field becomes undefined, never a crash.
const str = z.string().nullish().catch(undefined);
const num = z.number().nullish().catch(undefined);

export const AnthropicUsage = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_creation_input_tokens: num,
  cache_read_input_tokens: num,
});
export type AnthropicUsage = z.infer<typeof AnthropicUsage>;

const usage = AnthropicUsage.nullish().catch(undefined);

/** One Messages stream event, read loosely; unknown event and block types pass as `other`. */
export const AnthropicStreamEvent = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("message_start"),
    message: z.looseObject({ id: str, usage }).nullish().catch(undefined),
  }),
  z.looseObject({
    type: z.literal("content_block_start"),
    index: z.number(),
    content_block: z.looseObject({
      type: z.string(),
      id: str,
      name: str,
      text: str,
      thinking: str,
      signature: str,
      data: str,
      input: z.unknown(),
    }),
  }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.looseObject({
      type: z.string(),
      text: str,
      thinking: str,
      signature: str,
      partial_json: str,
    }),
  }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number() }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: str }).nullish().catch(undefined),
    usage,
  }),
  z.looseObject({ type: z.literal("message_stop") }),
]);
export type AnthropicStreamEvent = z.infer<typeof AnthropicStreamEvent>;
