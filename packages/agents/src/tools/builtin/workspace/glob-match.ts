import { isPrintable } from "@agentwire-chat/protocol";

type Token =
  | { kind: "lit"; ch: string }
  | { kind: "one" }
  | { kind: "star" }
  | { kind: "any" }
  | { kind: "dirs" };

/** A compiled glob: `*` (within a name), `?` (one character), `**` (anything; as a whole component, any directories). */
export type Glob = { tokens: Token[]; wholePath: boolean };

const MAX_GLOB_CHARS = 200;

/**
 * Compiles a workspace glob. A glob with a `/` is matched against the whole path from the workspace
 * top; one without is matched against the file name, in any directory. No character classes or braces.
 */
export function compileGlob(glob: string): { ok: true; value: Glob } | { ok: false; reason: string } {
  if (glob.length === 0 || glob.length > MAX_GLOB_CHARS) {
    return { ok: false, reason: `glob must be 1-${MAX_GLOB_CHARS} characters` };
  }
  if (!isPrintable(glob)) return { ok: false, reason: "glob contains control characters" };
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*" && glob[i + 1] === "*") {
      const atStart = i === 0 || glob[i - 1] === "/";
      if (atStart && glob[i + 2] === "/") {
        tokens.push({ kind: "dirs" });
        i += 2;
      } else {
        tokens.push({ kind: "any" });
        i += 1;
      }
    } else if (ch === "*") tokens.push({ kind: "star" });
    else if (ch === "?") tokens.push({ kind: "one" });
    else tokens.push({ kind: "lit", ch });
  }
  return { ok: true, value: { tokens, wholePath: glob.includes("/") } };
}

/**
 * Whether `relPath` (components joined by `/`) matches. The match walks a set of reachable positions
 * token by token (O(path × glob)), so no glob can make it backtrack exponentially.
 */
export function globMatches(glob: Glob, relPath: string): boolean {
  const text = glob.wholePath ? relPath : relPath.slice(relPath.lastIndexOf("/") + 1);
  const n = text.length;
  let reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (const token of glob.tokens) {
    const next = new Uint8Array(n + 1);
    let any = false;
    let earlier = false; // some position before i is reachable
    for (let i = 0; i <= n; i++) {
      switch (token.kind) {
        case "lit":
          if (i > 0 && reach[i - 1] && text[i - 1] === token.ch) next[i] = 1;
          break;
        case "one":
          if (i > 0 && reach[i - 1] && text[i - 1] !== "/") next[i] = 1;
          break;
        case "star":
          if (reach[i] || (i > 0 && next[i - 1] && text[i - 1] !== "/")) next[i] = 1;
          break;
        case "any":
          if (reach[i] || (i > 0 && next[i - 1])) next[i] = 1;
          break;
        case "dirs":
          // Nothing, or any run of text that ends with a `/` after a reachable position.
          if (reach[i]) next[i] = 1;
          else if (earlier && text[i - 1] === "/") next[i] = 1;
          break;
      }
      if (reach[i]) earlier = true;
      if (next[i]) any = true;
    }
    if (!any) return false;
    reach = next;
  }
  return reach[n] === 1;
}
