import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import { bodyText, createGuardedGet, type GuardedGetOptions } from "./guarded-get.js";
import { htmlToText } from "./html-to-text.js";

// Argument schemas at module level: built once, their JSON Schema is converted once (defineTool caches it).
const WebFetchArgs = z.object({ url: z.string().max(8192) });

/** Options of createWebFetchTool: the guarded client's, and the cap on the text. */
export type WebFetchOptions = GuardedGetOptions & {
  /** Cap on the text returned to the model (default 100,000 characters). */
  maxTextChars?: number;
};

const ACCEPT = "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5";
const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ld\+json|[a-z.+-]*\+(json|xml))\b)/;

/** The web_fetch tool: http(s) GET through the guarded client (SSRF checks on every hop), returning readable text. */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const get = createGuardedGet(options);
  const maxTextChars = options.maxTextChars ?? 100_000;

  return defineTool({
    name: "web_fetch",
    description:
      "Fetch a public http(s) URL and return its readable text (HTML is reduced to text). Private and local addresses are refused.",
    args: WebFetchArgs,
    permissionClass: "network",
    execute: async ({ url }, ctx) => {
      const res = await get(url, ctx.signal, ACCEPT);
      if (!res.ok) return toolError(res.reason);
      const value = res.value;
      const type = value.contentType.split(";")[0]?.trim() ?? "";
      const isHtml = type === "text/html" || type === "application/xhtml+xml";
      if (!isHtml && !TEXTUAL.test(type) && !(type === "" && !value.body.includes(0))) {
        return toolError(`unsupported content type ${type.slice(0, 80)}: web_fetch returns text only`);
      }
      const decoded = bodyText(value);
      const { text, truncated } = isHtml
        ? htmlToText(decoded, maxTextChars)
        : { text: decoded.slice(0, maxTextChars), truncated: decoded.length > maxTextChars };
      const final = new URL(value.url);
      if (value.status < 200 || value.status > 299) {
        return toolError(`HTTP ${value.status} from ${final.origin}: ${text.slice(0, 500)}`);
      }
      return ok({ url: value.url, status: value.status, contentType: type, text, truncated });
    },
  });
}
