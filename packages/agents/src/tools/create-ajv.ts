import { Ajv, type Logger as AjvInternalLogger, type Options } from "ajv";
import formatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is the module object, whose `default`
// is the plugin (at run time too: the module sets `exports.default` to itself).
const addFormats = formatsModule.default;

/** The part of a pino logger ajv's messages go to. */
export type AjvLogger = {
  warn(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
  error?(obj: object, msg: string): void;
};

/** Options of createAjv: ajv's own, and where its messages go (absent: dropped). */
export type CreateAjvOptions = Omit<Options, "logger"> & { logger?: AjvLogger | undefined };

/**
 * An Ajv for tool and output schemas: not strict (schemas come from models, MCP servers and clients),
 * all errors, the standard formats, and its messages (e.g. `unknown format "x" ignored`) through the
 * caller's logger instead of ajv's default `console`, which writes raw text to stderr beside the JSON
 * logs. Formats use ajv-formats' "fast" mode: several "full" regexes (uri, email) are documented ReDoS
 * risks, and the strings they check are model-written.
 */
export function createAjv(options: CreateAjvOptions = {}): Ajv {
  const { logger, ...rest } = options;
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    ...rest,
    logger: logger ? toAjvLogger(logger) : false,
  });
  addFormats(ajv, { mode: "fast" });
  return ajv;
}

// Per logger, not per Ajv: callers build an Ajv per turn (MCP tools), and a message is worth one line.
const seenBy = new WeakMap<AjvLogger, Set<string>>();

/** ajv's logger interface over a pino-style one; each distinct message once per logger (ajv repeats them). */
function toAjvLogger(logger: AjvLogger): AjvInternalLogger {
  let seen = seenBy.get(logger);
  if (!seen) {
    seen = new Set<string>();
    seenBy.set(logger, seen);
  }
  const once = (write: (obj: object, msg: string) => void, args: unknown[]) => {
    const msg = args.map(String).join(" ");
    if (seen.has(msg) || seen.size >= 100) return;
    seen.add(msg);
    write({ source: "ajv" }, msg);
  };
  return {
    log: (...args) => once((obj, msg) => logger.debug?.(obj, msg), args),
    warn: (...args) => once((obj, msg) => logger.warn(obj, msg), args),
    error: (...args) => once((obj, msg) => (logger.error ?? logger.warn).call(logger, obj, msg), args),
  };
}
