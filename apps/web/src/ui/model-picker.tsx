import type { ProviderInfo } from "../net/http-api.js";
import { useController } from "./controller-context.js";

/** Provider and model, remembered in localStorage; any model name may be typed (new models need no release). */
export function ModelPicker({
  providers,
  provider,
  model,
}: {
  providers: ProviderInfo[];
  provider?: string;
  model?: string;
}) {
  const controller = useController();
  if (providers.length === 0) return null;
  const current = providers.find((p) => p.id === provider);
  return (
    <div class="picker">
      <label>
        <span class="picker-label">Provider</span>
        <select
          value={provider}
          onChange={(e) => {
            const next = providers.find((p) => p.id === e.currentTarget.value);
            controller.choose(next?.id, next?.default_model ?? next?.models[0]);
          }}
        >
          {providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="picker-label">Model</span>
        <input
          list="model-options"
          value={model ?? ""}
          placeholder={current?.default_model ?? "server default"}
          onChange={(e) => controller.choose(provider, e.currentTarget.value.trim() || undefined)}
        />
        <datalist id="model-options">
          {(current?.models ?? []).map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
    </div>
  );
}
