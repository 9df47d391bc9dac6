/**
 * JSON text building for the frame fuzzer: values that JSON.stringify cannot produce on its own
 * (own `__proto__` keys, nesting too deep to build as objects, literal text such as `1e400`).
 */

/** Literal JSON text spliced into an encoded value in place of this marker. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * An object with exactly these own keys, in order; `__proto__` becomes an own key as it would after
 * JSON.parse (an object literal would set the prototype instead).
 */
export function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return out;
}

/** `value` with `key: extra` added as an own key (any key, `__proto__` included). */
export function withKey(
  value: Record<string, unknown>,
  key: string,
  extra: unknown,
): Record<string, unknown> {
  return objectOf([...Object.entries(value).filter(([k]) => k !== key), [key, extra]]);
}

/** JSON.stringify, with every RawJson replaced by its text. */
export function encode(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof RawJson)) return v;
    raws.push(v.text);
    return `\u0001raw${raws.length - 1}\u0001`;
  });
  if (text === undefined) return "null";
  return raws.length === 0
    ? text
    : text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)] as string);
}

/** `depth` nested arrays and objects (`[{"a":[{"a":…}]}]`), as JSON text built without recursion. */
export function deepJson(depth: number, style: "array" | "object" | "mixed"): RawJson {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = style === "array" || (style === "mixed" && i % 2 === 0);
    open.push(array ? "[" : '{"a":');
    close.push(array ? "]" : "}");
  }
  close.reverse();
  return new RawJson(`${open.join("")}1${close.join("")}`);
}

/** How deeply a JSON text nests objects and arrays (a top-level object is 1); strings are skipped. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") max = Math.max(max, ++depth);
    else if (ch === "]" || ch === "}") depth--;
  }
  return max;
}

/** True when `text` parses as JSON. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
