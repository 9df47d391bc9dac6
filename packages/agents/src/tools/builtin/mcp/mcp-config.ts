import { promises as fsp } from "node:fs";
import { z } from "zod";
import { permissionClasses } from "../../../turn/permission-class.js";
import type { Checked } from "../workspace/confine-path.js";

// No "__" inside a server name: it separates server and tool in `server__tool`.
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

const common = {
  permission_class: z.enum(permissionClasses as [string, ...string[]]).optional(),
  /** Whether two calls to this server's tools may run at once (default false: side effects unknown). */
  parallel_safe: z.boolean().optional(),
};

/** A server started as a child process speaking MCP over stdio. */
export const McpStdioServerConfig = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional(),
  ...common,
});

/** A server reached over MCP streamable HTTP. */
export const McpHttpServerConfig = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});

export const McpServerConfig = z.union([McpStdioServerConfig, McpHttpServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** The operator's MCP config file: `{servers: {name: {command, args, env?} | {url}, ...}}`. */
export const McpServersConfig = z.strictObject({
  servers: z.record(
    z.string().regex(SERVER_NAME, "server names use letters, digits, '-' and single '_' (no '__')").max(32),
    McpServerConfig,
  ),
});
export type McpServersConfig = z.infer<typeof McpServersConfig>;

/** Validates parsed JSON as McpServersConfig; the failure names the offending server and field. */
export function parseMcpServersConfig(json: unknown): Checked<McpServersConfig> {
  const parsed = McpServersConfig.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    reason: `invalid MCP servers config: ${explain(json) ?? formatIssues(parsed.error.issues)}`,
  };
}

/** A per-server diagnosis: zod's record and union errors alone say little ("Invalid input"). */
function explain(json: unknown): string | null {
  const servers = (json as { servers?: unknown } | null)?.servers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return null;
  for (const [name, entry] of Object.entries(servers)) {
    if (!SERVER_NAME.test(name) || name.length > 32) {
      return `servers.${name}: server names use letters, digits, '-' and single '_' (no '__'), at most 32 characters`;
    }
    const isObject = typeof entry === "object" && entry !== null;
    const schema =
      isObject && "command" in entry
        ? McpStdioServerConfig
        : isObject && "url" in entry
          ? McpHttpServerConfig
          : null;
    if (!schema) return `servers.${name}: needs either "command" (stdio) or "url" (streamable HTTP)`;
    const one = schema.safeParse(entry);
    if (!one.success) return formatIssues(one.error.issues, `servers.${name}`);
  }
  return null;
}

function formatIssues(issues: readonly z.core.$ZodIssue[], prefix?: string): string {
  return issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

/** Reads and validates an MCP config file. */
export async function loadMcpServersConfig(file: string): Promise<Checked<McpServersConfig>> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    return { ok: false, reason: `cannot read MCP servers config ${file}: ${code}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `MCP servers config ${file} is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = parseMcpServersConfig(json);
  return parsed.ok ? parsed : { ok: false, reason: `${parsed.reason} (in ${file})` };
}
