/** What the page remembers between visits (localStorage): the API token and the chosen model. */
export type Settings = { token?: string; provider?: string; model?: string };

const KEY = "agentwire.settings";

export function loadSettings(storage: Storage = localStorage): Settings {
  try {
    const raw = storage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    if (typeof parsed !== "object" || parsed === null) return {};
    const { token, provider, model } = parsed as Record<string, unknown>;
    return {
      ...(typeof token === "string" && { token }),
      ...(typeof provider === "string" && { provider }),
      ...(typeof model === "string" && { model }),
    };
  } catch {
    // Storage disabled or a corrupt value: start fresh rather than fail to load the page.
    return {};
  }
}

export function saveSettings(settings: Settings, storage: Storage = localStorage): void {
  try {
    storage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // Private mode or a full quota: the choice just isn't remembered.
  }
}
