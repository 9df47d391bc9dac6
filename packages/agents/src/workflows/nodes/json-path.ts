/** A parsed path segment: an object key or an array index. */
type Segment = string | number;

/** Parses `a.b[0].c` (an optional leading `$` or `$.` is allowed); undefined when malformed. */
export function parseJsonPath(path: string): Segment[] | undefined {
  let rest = path.trim().replace(/^\$\.?/, "");
  const out: Segment[] = [];
  while (rest.length > 0) {
    const m = /^(?:\[(\d+)\]|\[["']([^"']*)["']\]|\.?([^.[\]]+))/.exec(rest);
    if (!m) return undefined;
    if (m[1] !== undefined) out.push(Number(m[1]));
    else out.push((m[2] ?? m[3]) as string);
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** Follows a parsed path into a value; says which segment is missing when it is not there. */
export function followJsonPath(
  value: unknown,
  segments: readonly Segment[],
): { ok: true; value: unknown } | { ok: false; error: string } {
  let cur = value;
  let walked = "$";
  for (const seg of segments) {
    const here = typeof seg === "number" ? `${walked}[${seg}]` : `${walked}.${seg}`;
    if (typeof seg === "number" && Array.isArray(cur) && seg < cur.length) cur = cur[seg];
    else if (typeof seg === "string" && cur !== null && typeof cur === "object" && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else if (
      typeof seg === "string" &&
      Array.isArray(cur) &&
      /^\d+$/.test(seg) &&
      Number(seg) < cur.length
    ) {
      cur = cur[Number(seg)];
    } else {
      return { ok: false, error: `path ${here} not found` };
    }
    walked = here;
  }
  return { ok: true, value: cur };
}
