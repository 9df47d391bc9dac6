import { z } from "zod";

// Every leaf falls back to undefined instead of failing the whole event: an unexpected field is
// ignored, never a crash (the same rule as the Chat Completions chunk).
const str = z.string().nullish().catch(undefined);
const num = z.number().nullish().catch(undefined);

/** An output item as `response.output_item.added` / `.done` carry it; only the kinds read here. */
export const ResponsesOutputItem = z.looseObject({
  id: str,
  type: str,
  /** function_call */
  call_id: str,
  name: str,
  arguments: str,
  /** reasoning */
  encrypted_content: str,
  summary: z
    .array(z.looseObject({ text: str }))
    .nullish()
    .catch(undefined),
});
export type ResponsesOutputItem = z.infer<typeof ResponsesOutputItem>;

export const ResponsesUsage = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  input_tokens_details: z
    .looseObject({ cached_tokens: num, cache_write_tokens: num })
    .nullish()
    .catch(undefined),
  output_tokens_details: z.looseObject({ reasoning_tokens: num }).nullish().catch(undefined),
});
export type ResponsesUsage = z.infer<typeof ResponsesUsage>;

/** The error of a failed response, or of an `error` event (flat in the SDK's types, nested on the wire). */
export const ResponsesError = z.looseObject({ type: str, code: str, message: str });

/** One streamed Responses event, loosely: the fields of every kind this adapter reads. */
export const ResponsesEvent = z.looseObject({
  type: z.string(),
  delta: str,
  item_id: str,
  output_index: num,
  summary_index: num,
  arguments: str,
  item: ResponsesOutputItem.nullish().catch(undefined),
  response: z
    .looseObject({
      status: str,
      usage: ResponsesUsage.nullish().catch(undefined),
      error: ResponsesError.nullish().catch(undefined),
      incomplete_details: z.looseObject({ reason: str }).nullish().catch(undefined),
    })
    .nullish()
    .catch(undefined),
  /** `error` events */
  code: str,
  message: str,
  error: ResponsesError.nullish().catch(undefined),
});
export type ResponsesEvent = z.infer<typeof ResponsesEvent>;
