import type { DestinationStream } from "pino";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/**
 * One pino JSON line as a person reads it on a terminal: time, level, message, then the other fields
 * as JSON and an error's stack below. It reformats a line pino already redacted, so it adds no secret.
 */
export function plainLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, time, pid: _pid, hostname: _hostname, msg, err, ...rest } = entry;
  const clock = typeof time === "number" ? new Date(time).toTimeString().slice(0, 8) : "--:--:--";
  const name = (typeof level === "number" && LEVELS[level]) || String(level);
  let line = `${clock} ${name.padEnd(5)} ${typeof msg === "string" ? msg : ""}`;
  if (Object.keys(rest).length > 0) line += ` ${JSON.stringify(rest)}`;
  const stack = (err as { stack?: unknown } | undefined)?.stack;
  if (typeof stack === "string") line += `\n${stack.replace(/^/gm, "    ")}`;
  return `${line}\n`;
}

/** A pino destination writing plainLogLine's lines to `out` (stdout by default). */
export function plainLogDestination(out: NodeJS.WritableStream = process.stdout): DestinationStream {
  return { write: (line: string) => void out.write(plainLogLine(line)) };
}
