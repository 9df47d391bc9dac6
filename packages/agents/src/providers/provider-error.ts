import {
  APIError as AnthropicAPIError,
  APIConnectionError as AnthropicConnectionError,
  APIConnectionTimeoutError as AnthropicTimeoutError,
} from "@anthropic-ai/sdk";
import { decodeHTML } from "entities";
import {
  APIError as OpenAIAPIError,
  APIConnectionError as OpenAIConnectionError,
  APIConnectionTimeoutError as OpenAITimeoutError,
} from "openai";
import { ProviderStallError } from "./idle-timeout-fetch.js";
import type { ProviderErrorInfo } from "./provider-event.js";

const MAX_MESSAGE_CHARS = 500;

/** Anthropic mid-stream errors carry no HTTP status; their type says which status they stand for. */
const ANTHROPIC_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** What the adapter knows about the failing call beyond the error itself. */
export type ProviderErrorContext = {
  beforeStream: boolean;
  requestId?: string | undefined;
  /** Secrets (API keys) that must never appear in the message. */
  secrets?: readonly string[];
  timeoutMs?: number;
};

/** Turns anything an SDK call threw into a ProviderErrorInfo safe to show and store. */
export function toProviderErrorInfo(err: unknown, ctx: ProviderErrorContext): ProviderErrorInfo {
  const info: ProviderErrorInfo = { message: "", beforeStream: ctx.beforeStream };
  if (err instanceof ProviderStallError) {
    info.message = err.message;
    info.stalled = true;
  } else if (err instanceof OpenAITimeoutError || err instanceof AnthropicTimeoutError) {
    info.message = ctx.timeoutMs
      ? `request timed out (no response within ${ctx.timeoutMs} ms)`
      : "request timed out";
  } else if (err instanceof OpenAIConnectionError || err instanceof AnthropicConnectionError) {
    info.message = `connection error: ${causeMessage(err) ?? err.message}`;
  } else if (err instanceof OpenAIAPIError || err instanceof AnthropicAPIError) {
    const body = describeBody(err.error);
    const status = err.status ?? body.status;
    if (status !== undefined) info.status = status;
    const requestId = err.requestID ?? body.requestId ?? ctx.requestId;
    if (requestId) info.requestId = requestId;
    info.message = body.message ?? stripStatusPrefix(err.message, err.status) ?? "provider error";
  } else if (err instanceof Error) {
    info.message = err.message || err.name;
  } else {
    info.message = String(err);
  }
  if (info.requestId === undefined && ctx.requestId) info.requestId = ctx.requestId;
  info.message = sanitizeProviderText(info.message, ctx.secrets ?? []);
  return info;
}

/** Builds an error for a stream the adapter itself judged broken (e.g. cut before its end). */
export function streamFailure(message: string, requestId?: string | null): ProviderErrorInfo {
  const info: ProviderErrorInfo = { message, beforeStream: false };
  if (requestId) info.requestId = requestId;
  return info;
}

/** Redacts secrets, summarises HTML and bounds the length of provider-supplied text. */
export function sanitizeProviderText(text: string, secrets: readonly string[]): string {
  let out = looksLikeHtml(text) ? summariseHtml(text) : text;
  for (const secret of secrets) {
    if (secret.length >= 6) out = out.split(secret).join("***");
  }
  out = out
    .replace(/\bsk-[A-Za-z0-9_*.-]{4,}/g, "sk-***")
    .replace(/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, "Bearer ***")
    .replace(/(x-api-key|api[_-]?key)(["']?\s*[:=]\s*["']?)[^\s"'&,}]+/gi, "$1$2***")
    .replace(/\s+/g, " ")
    .trim();
  return out.length > MAX_MESSAGE_CHARS ? `${out.slice(0, MAX_MESSAGE_CHARS - 1)}…` : out;
}

type BodyInfo = { message?: string; status?: number; requestId?: string };

// openai puts the inner `{message,type,code}` in err.error; anthropic puts the whole body there.
function describeBody(raw: unknown): BodyInfo {
  if (typeof raw === "string") return { message: raw };
  if (!isRecord(raw)) return {};
  const inner = isRecord(raw.error) ? raw.error : raw;
  const out: BodyInfo = {};
  const type = typeof inner.type === "string" && inner.type !== "error" ? inner.type : undefined;
  const message = typeof inner.message === "string" ? inner.message : undefined;
  if (message) out.message = type && !message.startsWith(type) ? `${type}: ${message}` : message;
  else if (type) out.message = type;
  if (typeof inner.code === "number" && inner.code >= 400 && inner.code < 600) out.status = inner.code;
  else if (type && ANTHROPIC_TYPE_STATUS[type]) out.status = ANTHROPIC_TYPE_STATUS[type];
  if (typeof raw.request_id === "string") out.requestId = raw.request_id;
  return out;
}

function stripStatusPrefix(message: string, status: number | undefined): string | undefined {
  if (!message) return undefined;
  return status !== undefined && message.startsWith(`${status} `)
    ? message.slice(`${status} `.length)
    : message;
}

function causeMessage(err: Error): string | undefined {
  const cause = (err as { cause?: unknown }).cause;
  if (!(cause instanceof Error)) return undefined;
  const inner = (cause as { cause?: unknown }).cause;
  return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
}

function looksLikeHtml(text: string): boolean {
  return /<!doctype html|<html[\s>]|<body[\s>]|<\/(?:p|div|h1|title)>/i.test(text);
}

// Gateways answer 502/503 with whole HTML pages; the title or first words say enough.
function summariseHtml(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const pick = title ?? heading ?? html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ");
  const text = decodeHTML(pick.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
  const prefix = /^(\d{3})\s/.exec(html)?.[1];
  return `${prefix ? `${prefix} ` : ""}HTML error page: ${text.slice(0, 160) || "(no text)"}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
