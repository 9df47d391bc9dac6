import { createHash, randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";

/** Where approved tool-definition hashes live, one per MCP server. */
export interface PinStore {
  get(server: string): Promise<string | undefined>;
  set(server: string, hash: string): Promise<void>;
}

/** JSON with object keys sorted at every level, so equal values always serialise the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The definition of one listed MCP tool, as far as the model (and so an attacker) can see it. */
export type PinnedToolDefinition = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
};

/** sha256 over the canonical JSON of a server's tool definitions, in name order. */
export function hashToolDefinitions(tools: readonly PinnedToolDefinition[]): string {
  const normalised = [...tools]
    .map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `sha256:${createHash("sha256").update(canonicalJson(normalised)).digest("hex")}`;
}

/** Pins kept in memory (tests, ephemeral deployments). */
export class InMemoryPinStore implements PinStore {
  readonly #pins = new Map<string, string>();
  async get(server: string) {
    return this.#pins.get(server);
  }
  async set(server: string, hash: string) {
    this.#pins.set(server, hash);
  }
}

/** Pins in a JSON file `{"pins": {server: hash}}`, written atomically with mode 0600. */
export class JsonFilePinStore implements PinStore {
  #writes: Promise<unknown> = Promise.resolve();
  constructor(readonly file: string) {}

  async get(server: string): Promise<string | undefined> {
    return (await this.#read())[server];
  }

  set(server: string, hash: string): Promise<void> {
    const write = this.#writes.then(async () => {
      const pins = { ...(await this.#read()), [server]: hash };
      const tmp = path.join(
        path.dirname(this.file),
        `.${path.basename(this.file)}.${randomBytes(6).toString("hex")}`,
      );
      await fsp.writeFile(tmp, `${JSON.stringify({ pins }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      await fsp.rename(tmp, this.file);
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  async #read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw err;
    }
    const parsed = JSON.parse(text) as { pins?: Record<string, unknown> };
    const pins: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed.pins ?? {})) if (typeof v === "string") pins[k] = v;
    return pins;
  }
}
