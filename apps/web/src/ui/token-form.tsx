import { useState } from "preact/hooks";
import { useController } from "./controller-context.js";

/** Asked once when the server runs with AUTH_MODE=token; the token stays in this browser's localStorage. */
export function TokenForm() {
  const controller = useController();
  const [token, setToken] = useState("");
  return (
    <form
      class="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (token.trim()) controller.setToken(token);
      }}
    >
      <h2>API token</h2>
      <p>This server needs an API token. Create one where the server runs:</p>
      <ul class="token-commands">
        <li>
          in its container: <code>{"docker exec <container> agentwire token create --user NAME"}</code> (
          <code>podman exec</code> likewise; <code>docker ps</code> names the container)
        </li>
        <li>
          in a checkout of agentwire: <code>pnpm agentwire token create --user NAME</code>
        </li>
      </ul>
      <p class="muted">The token is printed once; it stays in this browser only.</p>
      <label for="token-input">Token</label>
      <div class="row">
        <input
          id="token-input"
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <button type="submit" disabled={!token.trim()}>
          Save
        </button>
      </div>
    </form>
  );
}
