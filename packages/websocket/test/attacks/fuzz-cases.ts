/**
 * Inbound frames for the fuzz test, each with the answers the contract (docs/protocol.md) allows it.
 * The expected answers assume the fuzz server: chat services with only the `scripted` provider, client
 * UI tools on, no saved-workflow or media services, and no thread or pending call at all. No case is a
 * frame that would start a turn.
 */
import {
  ChatMessageData,
  type ClientCommandName,
  clientCommandNames,
  isBlankContent,
  type MessageContent,
} from "@agentwire-chat/protocol";
import fc from "fast-check";
import {
  ABSENT,
  ENVELOPE_KEYS,
  echoOf,
  envelope,
  type FuzzCase,
  fuzzCase,
  jsonCase,
  type Outcome,
  requestId,
} from "./fuzz-case.js";
import { deepCase, pollution } from "./fuzz-deep-cases.js";
import { encode, isJson, objectOf, withKey } from "./fuzz-json.js";
import { randomManifest, refusedManifest } from "./fuzz-manifest-cases.js";
import {
  anyJson,
  chatFields,
  commandFields,
  type FieldSpec,
  hostileKey,
  hugeString,
  notObject,
  notString,
  pollutingValue,
  text,
} from "./fuzz-values.js";

const command = fc.constantFrom(...clientCommandNames);
/** The command's field specs; a command without any (a new one) fails the fuzz loudly, not as `{}`. */
function fieldsOf(c: ClientCommandName): Record<string, FieldSpec> {
  const fields = c === "chat_message" ? chatFields : commandFields[c];
  if (!fields) throw new Error(`fuzz-values.ts has no field specs for the command ${c}: add them`);
  return fields;
}

/** Data the command's schema accepts, optional fields present or not. */
function validData(c: ClientCommandName): fc.Arbitrary<Record<string, unknown>> {
  const fields = fieldsOf(c);
  const model = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.valid]));
  const requiredKeys = Object.keys(fields).filter((k) => fields[k]?.required);
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * Where a chat_message the schema accepts goes (docs/protocol.md "Routing"): blank content is
 * `bad_request` before any route; a route without services
 * is `unavailable`, an unknown provider `bad_request`, a thread that does not exist `not_found`; a new
 * thread with a known provider would start a turn.
 */
function chatOutcome(data: Record<string, unknown>): readonly Outcome[] | "starts_turn" {
  if (isBlankContent(data.content as MessageContent)) return ["bad_request"];
  if (data.workflow_target === "workflow") return ["unavailable"];
  const media = data.media_generation as { mode?: unknown } | undefined;
  if (media !== undefined && media.mode !== "chat") return ["unavailable"];
  if (data.provider !== undefined && data.provider !== "scripted") return ["bad_request"];
  if (data.thread_id !== undefined) return ["not_found"];
  return "starts_turn";
}

/** The answer to schema-valid data: pong, nothing (a manifest), or the refusal of an id that exists nowhere. */
function validOutcome(
  c: ClientCommandName,
  data: Record<string, unknown>,
): readonly Outcome[] | "starts_turn" {
  if (c === "ping") return ["pong"];
  if (c === "client_tools_manifest" || c === "subscribe_threads") return ["none"];
  if (c === "chat_message") return chatOutcome(data);
  return ["not_found"];
}

const schemaValid = command
  .chain((c) => fc.tuple(fc.constant(c), validData(c), requestId))
  .map(([c, data, rid]) => ({ c, data, rid, outcome: validOutcome(c, data) }))
  .filter((x) => x.outcome !== "starts_turn")
  .map(({ c, data, rid, outcome }) =>
    jsonCase(`valid ${c}`, envelope(c, data, rid), outcome as readonly Outcome[], echoOf(rid)),
  );

const validPing = requestId.map((rid) => jsonCase("ping", envelope("ping", {}, rid), ["pong"], echoOf(rid)));

const wrongField = command
  .filter((c) => Object.values(fieldsOf(c)).some((f) => f.wrong))
  .chain((c) => {
    const fields = fieldsOf(c);
    const names = Object.keys(fields).filter((k) => fields[k]?.wrong);
    return fc
      .tuple(validData(c), fc.constantFrom(...names), requestId)
      .chain(([data, name, rid]) =>
        (fields[name]?.wrong as fc.Arbitrary<unknown>).map((bad) =>
          jsonCase(
            `wrong ${c}.${name}`,
            envelope(c, withKey(data, name, bad), rid),
            ["bad_request"],
            echoOf(rid),
          ),
        ),
      );
  });

const missingRequired = command
  .filter((c) => Object.values(fieldsOf(c)).some((f) => f.required))
  .chain((c) => {
    const fields = fieldsOf(c);
    const required = Object.keys(fields).filter((k) => fields[k]?.required);
    return fc.tuple(validData(c), fc.constantFrom(...required), requestId).map(([data, name, rid]) => {
      const rest = objectOf(Object.entries(data).filter(([k]) => k !== name));
      return jsonCase(`missing ${c}.${name}`, envelope(c, rest, rid), ["bad_request"], echoOf(rid));
    });
  });

const unknownDataKey = command.chain((c) =>
  fc
    .tuple(
      validData(c),
      hostileKey.filter((k) => !Object.hasOwn(fieldsOf(c), k)),
      anyJson,
      requestId,
    )
    .map(([data, key, value, rid]) =>
      jsonCase(
        `unknown key in ${c}.data`,
        envelope(c, withKey(data, key, value), rid),
        ["bad_request"],
        echoOf(rid),
      ),
    ),
);

const unknownEnvelopeKey = command.chain((c) =>
  fc
    .tuple(
      validData(c),
      hostileKey.filter((k) => !ENVELOPE_KEYS.includes(k)),
      anyJson,
      requestId,
    )
    .map(([data, key, value, rid]) =>
      jsonCase(
        `unknown envelope key (${c})`,
        envelope(c, data, rid, [key, value]),
        ["bad_request"],
        echoOf(rid),
      ),
    ),
);

const dataNotObject = fc
  .tuple(command, fc.oneof(fc.constant<unknown>(ABSENT), notObject), requestId)
  .map(([c, data, rid]) =>
    jsonCase(`${c} data not an object`, envelope(c, data, rid), ["bad_request"], echoOf(rid)),
  );

const commandNotString = fc
  .tuple(fc.oneof(notString, fc.constant<unknown>(ABSENT)), fc.jsonValue({ maxDepth: 2 }), requestId)
  .map(([c, data, rid]) =>
    jsonCase("command not a string", envelope(c, data, rid), ["bad_request"], echoOf(rid)),
  );

const requestIdNotString = fc.tuple(fc.oneof(command, text(0, 10)), notString).map(([c, rid]) =>
  jsonCase(
    "request_id not a string",
    envelope(c, {}, rid),
    // Which of two faults is named first is the parser's choice; the bad request_id is never echoed.
    (clientCommandNames as string[]).includes(c) ? ["bad_request"] : ["bad_request", "unknown_command"],
    "none",
  ),
);

const unknownCommandName = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "PING",
        "ping ",
        "chat_message\u0000",
        "",
      ),
    },
    { weight: 4, arbitrary: text(0, 30) },
    { weight: 1, arbitrary: hugeString(4_001, 40_000) },
  )
  .filter((name) => !(clientCommandNames as string[]).includes(name));
const unknownCommand = fc
  .tuple(
    unknownCommandName,
    fc.oneof(fc.constant<unknown>(ABSENT), fc.jsonValue({ maxDepth: 2 }), pollutingValue),
    requestId,
    fc.option(
      fc.tuple(
        hostileKey.filter((k) => !ENVELOPE_KEYS.includes(k)),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      {
        nil: undefined,
      },
    ),
  )
  .map(([name, data, rid, extra]) =>
    jsonCase(
      "unknown command",
      envelope(name, data, rid, extra),
      // Which of two faults is named first is the parser's choice.
      extra ? ["unknown_command", "bad_request"] : ["unknown_command"],
      echoOf(rid),
    ),
  );

/** Frames that are not JSON: noise, cut-off frames, trailing garbage, near-JSON. */
const notJson = fc
  .oneof(
    text(0, 40),
    fc
      .tuple(validPing, fc.nat())
      .map(([c, n]) => (c.frame as string).slice(0, n % Math.max(1, (c.frame as string).length))),
    fc
      .tuple(validPing, fc.constantFrom("}", ",", "x", "\u0000", " {", "]"))
      .map(([c, tail]) => c.frame + tail),
    fc.constantFrom(
      "",
      "{",
      "NaN",
      "undefined",
      "{'command':'ping','data':{}}",
      '{"command":"ping","data":{},}',
      '\ufeff{"command":"ping","data":{}}',
      '//\n{"command":"ping","data":{}}',
      '{"command":"ping","data":{}}{"command":"ping","data":{}}',
      '{"command":"ping","data":{"a":1e99999999999999999999x}}',
    ),
  )
  .filter((t) => !isJson(t))
  .map((t) => fuzzCase("not JSON", t, ["bad_json"], "none"));

const nonObjectJson = fc
  .jsonValue({ maxDepth: 2 })
  .filter((v) => v === null || typeof v !== "object" || Array.isArray(v))
  .map((v) => jsonCase("JSON but not an object", v, ["bad_request"], "none"));

const binaryFrame = fc
  .oneof(
    { weight: 6, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        Uint8Array.of(0xff, 0xfe, 0x7b),
        Uint8Array.of(0xc3, 0x28),
        Uint8Array.of(0xed, 0xa0, 0x80),
        Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
        new TextEncoder().encode('{"command":"ping","data":{}}'),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 10_000, max: 200_000 }).map((n) => new Uint8Array(n).fill(0x80)),
    },
  )
  .map((bytes) => fuzzCase("binary frame", bytes, ["bad_request"], "none"));

/** A second `command` key before the real one: JSON.parse keeps the last, so the answer is the original's. */
const duplicateCommand = fc
  .tuple(fc.oneof(schemaValid, wrongField), fc.constantFrom<unknown>("fly", 5, "ping", "__proto__", null))
  .filter(([c]) => typeof c.frame === "string" && c.frame.startsWith('{"command":'))
  .map(([c, decoy]) =>
    fuzzCase(
      `decoy command before ${c.kind}`,
      `{"command":${encode(decoy)},${(c.frame as string).slice(1)}`,
      c.accept,
      c.echo,
    ),
  );

/** Loosely shaped frames: only "some documented answer, never internal, never two" is known of them. */
const anything = fc
  .tuple(
    fc.oneof(command, text(0, 20)),
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 2 })),
    fc.option(fc.oneof(text(0, 20), fc.integer()), { nil: undefined }),
  )
  .filter(
    ([c, data]) =>
      !(
        c === "chat_message" &&
        ChatMessageData.safeParse(data).success &&
        chatOutcome(data as Record<string, unknown>) === "starts_turn"
      ),
  )
  .map(([c, data, rid]) =>
    jsonCase(
      "loose frame",
      envelope(c, data, rid),
      ["pong", "none", "bad_json", "bad_request", "unknown_command", "not_found", "unavailable"],
      "unchecked",
    ),
  );

/** Every kind of hostile inbound frame, weighted. */
/** The server's frame limit: a bigger frame closes the socket (1009), which the closing cases test. */
const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Every case that fits one frame. Several huge fields together can pass the limit (each escaped
 * character is up to 6 bytes); such a frame would close the batch's socket, so it is left out here.
 */
export const fuzzCaseArbitrary: fc.Arbitrary<FuzzCase> = fc
  .oneof(
    { weight: 3, arbitrary: validPing },
    { weight: 16, arbitrary: schemaValid },
    { weight: 8, arbitrary: wrongField },
    { weight: 2, arbitrary: missingRequired },
    { weight: 4, arbitrary: unknownDataKey },
    { weight: 2, arbitrary: unknownEnvelopeKey },
    { weight: 2, arbitrary: dataNotObject },
    { weight: 1, arbitrary: commandNotString },
    { weight: 1, arbitrary: requestIdNotString },
    { weight: 3, arbitrary: unknownCommand },
    { weight: 3, arbitrary: notJson },
    { weight: 1, arbitrary: nonObjectJson },
    { weight: 2, arbitrary: binaryFrame },
    { weight: 3, arbitrary: refusedManifest },
    { weight: 3, arbitrary: randomManifest },
    { weight: 4, arbitrary: deepCase },
    { weight: 2, arbitrary: pollution },
    { weight: 1, arbitrary: duplicateCommand },
    { weight: 3, arbitrary: anything },
  )
  .filter(
    (c) => (typeof c.frame === "string" ? Buffer.byteLength(c.frame) : c.frame.length) <= MAX_FRAME_BYTES,
  );
