/** Shown before the first message when `GET /api/providers` lists none: what to set on the server. */
export function NoProviderNotice() {
  return (
    <div class="no-provider" role="alert">
      <strong>No provider configured on the server:</strong> set <code>OPENAI_API_KEY</code>,{" "}
      <code>ANTHROPIC_API_KEY</code> or <code>OPENAI_COMPAT_ENDPOINTS</code> and restart.
    </div>
  );
}
