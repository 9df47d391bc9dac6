/**
 * How deeply any JSON a client sends may nest (objects and arrays, the frame itself counting as one).
 * Deeper values are refused at parse time: recursive code downstream (JSON.stringify, schema
 * compilers, validators) would otherwise overflow the stack on them.
 */
export const MAX_JSON_DEPTH = 64;

const SHOWN_SEGMENTS = 6;

type Node = { value: unknown; depth: number; parent: Node | undefined; key: string };

/**
 * The path (`data.tools.0.input_schema…`) of the first value nested deeper than `maxDepth`, or
 * undefined when the whole value is within it. Iterative, so the check itself cannot overflow.
 */
export function findTooDeep(
  value: unknown,
  root: string,
  maxDepth: number = MAX_JSON_DEPTH,
): string | undefined {
  if (!isContainer(value)) return undefined;
  const stack: Node[] = [{ value, depth: 1, parent: undefined, key: root }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.depth > maxDepth) return pathOf(node);
    // Only containers are stacked: most values of a frame are strings and numbers.
    const v = node.value as Record<string, unknown>;
    const keys = Array.isArray(v) ? undefined : Object.keys(v);
    const n = keys ? keys.length : (v as unknown as unknown[]).length;
    for (let i = 0; i < n; i++) {
      const key = keys ? (keys[i] as string) : i;
      const child = v[key];
      if (isContainer(child))
        stack.push({ value: child, depth: node.depth + 1, parent: node, key: String(key) });
    }
  }
  return undefined;
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function pathOf(node: Node): string {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n; n = n.parent) keys.push(n.key);
  keys.reverse();
  return keys.length > SHOWN_SEGMENTS ? `${keys.slice(0, SHOWN_SEGMENTS).join(".")}…` : keys.join(".");
}
