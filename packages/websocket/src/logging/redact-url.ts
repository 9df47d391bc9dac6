const SECRET_QUERY = /([?&](?:api_key|token|access_token)=)[^&#]*/gi;

/** The URL with secret query values (`api_key`, `token`, `access_token`) replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, "$1[redacted]");
}
