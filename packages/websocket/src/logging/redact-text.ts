// A thrown message is free text: a tool's bug may echo a connection string or a key it held. These are
// the shapes secrets take in such text; what they hide is never needed to find the bug.
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi;
const NAMED_SECRET =
  /\b((?:api[_-]?key|access[_-]?token|token|secret|password|passwd|pwd|authorization)["']?\s*[:=]\s*["']?(?:bearer\s+)?)[^\s"',;&]+/gi;
const BEARER = /\b(bearer\s+)[a-z0-9._~+/=-]{8,}/gi;
const KEY_LIKE = /\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][a-z0-9_-]{8,}/gi;

/** Free text (an error's message or stack) with credentials in URLs, `key=value` secrets, bearer tokens and API-key-shaped words replaced by `[redacted]`. */
export function redactText(text: string): string {
  return text
    .replace(URL_CREDENTIALS, "$1[redacted]@")
    .replace(NAMED_SECRET, "$1[redacted]")
    .replace(BEARER, "$1[redacted]")
    .replace(KEY_LIKE, "[redacted]");
}
