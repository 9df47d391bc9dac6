/** Only web and mail links; `javascript:`, `data:`, `vbscript:` and relative tricks render as plain text. */
export function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : undefined;
}
