/**
 * The Content-Security-Policy of every response, the web client's page above all: its own scripts,
 * styles and socket only, and no framing by any page (clickjacking). The built client has no inline
 * script or `<style>`, and sets styles only through the DOM, which the policy allows.
 * `connect-src 'self'` covers `ws:`/`wss:` to the page's own host and port (CSP Level 3; the browser
 * tests check it in Chromium), so the policy need not repeat the request's Host.
 * Plain data, no imports: the browser tests serve the page under the same policy.
 */
export const CONTENT_SECURITY_POLICY: Readonly<Record<string, readonly string[]>> = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  // Generated images are served at /api/assets/:id; data: and blob: for images the page builds itself.
  "img-src": ["'self'", "data:", "blob:"],
  "connect-src": ["'self'"],
  "font-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
};

/** The policy as one header value, written as helmet writes it (`;` between directives). */
export function contentSecurityPolicyHeader(): string {
  return Object.entries(CONTENT_SECURITY_POLICY)
    .map(([directive, sources]) => `${directive} ${sources.join(" ")}`)
    .join(";");
}
