import { decodeHTML } from "entities";

// Elements whose content is never readable text; skipped with everything inside them.
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"]);
// Elements that start a new line in the text.
const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "td",
  "th",
  "title",
  "tr",
  "ul",
]);

/**
 * Reduces HTML to readable text: drops comments, scripts, styles and tags, keeps line structure,
 * decodes entities, collapses whitespace and caps the result. A single linear scan (indexOf only),
 * so hostile markup such as thousands of unclosed `<` cannot make it quadratic.
 */
export function htmlToText(html: string, maxChars = 100_000): { text: string; truncated: boolean } {
  // ASCII-only lowering keeps indices aligned with `html` (toLowerCase may change lengths).
  const lower = html.replace(/[A-Z]+/g, (s) => s.toLowerCase());
  const parts: string[] = [];
  let pos = 0;
  while (pos < html.length) {
    const lt = lower.indexOf("<", pos);
    if (lt < 0) {
      parts.push(html.slice(pos));
      break;
    }
    parts.push(html.slice(pos, lt));
    if (lower.startsWith("<!--", lt)) {
      const end = lower.indexOf("-->", lt + 4);
      pos = end < 0 ? html.length : end + 3;
      continue;
    }
    if (!/^[a-z!?/]/.test(lower.slice(lt + 1, lt + 2))) {
      // `a < b`, `<3`: a lone `<` is text.
      parts.push("<");
      pos = lt + 1;
      continue;
    }
    const gt = lower.indexOf(">", lt);
    if (gt < 0) break;
    const name = /^\/?([a-z][a-z0-9]*)/.exec(lower.slice(lt + 1, Math.min(gt, lt + 40)));
    pos = gt + 1;
    if (!name) continue; // <!doctype>, <?xml ?>, </ >
    const tag = name[1] as string;
    const closing = lower[lt + 1] === "/";
    if (SKIPPED.has(tag) && !closing) {
      const close = lower.indexOf(`</${tag}`, gt);
      const end = close < 0 ? -1 : lower.indexOf(">", close);
      pos = end < 0 ? html.length : end + 1;
      continue;
    }
    if (tag === "li") {
      if (!closing) parts.push("\n- ");
    } else if (BLOCKS.has(tag)) parts.push("\n");
    else if (tag === "td" || tag === "th") parts.push(" ");
  }
  // entities implements the HTML spec: all named references, numeric ones, legacy ones without `;`.
  const text = decodeHTML(parts.join(""))
    .replace(/[ \t\f\v\r\u00a0]+/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text.length > maxChars
    ? { text: text.slice(0, maxChars), truncated: true }
    : { text, truncated: false };
}
