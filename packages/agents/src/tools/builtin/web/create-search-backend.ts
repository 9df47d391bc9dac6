import type { SearchBackend, WebSearchBackendConfig } from "./search-backend.js";
import { braveBackend } from "./search-backends/brave.js";
import { searxngBackend } from "./search-backends/searxng.js";

/** The backend the operator configured. */
export function createSearchBackend(config: WebSearchBackendConfig): SearchBackend {
  switch (config.backend) {
    case "searxng":
      return searxngBackend(config.url);
    case "brave":
      return braveBackend(config.apiKey, config.url);
  }
}
