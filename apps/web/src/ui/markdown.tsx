import { Lexer, type Token, type Tokens } from "marked";
import type { ComponentChildren } from "preact";
import { useMemo } from "preact/hooks";
import { safeHref } from "./safe-href.js";

/**
 * Model and tool text rendered as markdown without ever parsing HTML: marked only tokenizes, and
 * every token becomes a Preact element or a text node. Raw HTML in the text shows as literal text,
 * links work only for http(s) and mailto, and images are shown as links so nothing loads by itself.
 */
export function Markdown({ text }: { text: string }) {
  // Re-parse only when the text changed (streaming appends to one run at a time).
  const tree = useMemo(() => blocks(Lexer.lex(text, { gfm: true, breaks: false })), [text]);
  return <div class="md">{tree}</div>;
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((token, i) => block(token, i));
}

function block(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case "space":
    case "def":
      return null;
    case "heading": {
      const t = token as Tokens.Heading;
      const Tag = `h${Math.min(6, Math.max(3, t.depth + 2))}` as "h3";
      return <Tag key={key}>{inline(t.tokens)}</Tag>;
    }
    case "paragraph":
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case "code": {
      const t = token as Tokens.Code;
      return (
        <pre key={key}>
          <code data-lang={t.lang || undefined}>{t.text}</code>
        </pre>
      );
    }
    case "blockquote":
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case "list": {
      const t = token as Tokens.List;
      const items = t.items.map((item, j) => (
        <li key={j}>
          {item.task && <input type="checkbox" checked={item.checked} disabled aria-label="task" />}
          {item.loose ? blocks(item.tokens) : inline(item.tokens)}
        </li>
      ));
      return t.ordered ? (
        <ol key={key} start={typeof t.start === "number" ? t.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case "table": {
      const t = token as Tokens.Table;
      return (
        <div key={key} class="table-wrap">
          <table>
            <thead>
              <tr>
                {t.header.map((cell, j) => (
                  <th key={j}>{inline(cell.tokens)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, j) => (
                    <td key={j}>{inline(cell.tokens)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case "hr":
      return <hr key={key} />;
    case "text": {
      const t = token as Tokens.Text;
      return <p key={key}>{t.tokens ? inline(t.tokens) : decode(t.text)}</p>;
    }
    default:
      // html blocks and anything unknown: shown as the literal source text.
      return <p key={key}>{"raw" in token ? token.raw : ""}</p>;
  }
}

function inline(tokens: Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((token, key) => {
    switch (token.type) {
      case "text": {
        const t = token as Tokens.Text;
        return t.tokens ? inline(t.tokens) : decode(t.text);
      }
      case "escape":
        return (token as Tokens.Escape).text;
      case "strong":
        return <strong key={key}>{inline((token as Tokens.Strong).tokens)}</strong>;
      case "em":
        return <em key={key}>{inline((token as Tokens.Em).tokens)}</em>;
      case "del":
        return <del key={key}>{inline((token as Tokens.Del).tokens)}</del>;
      case "codespan":
        return <code key={key}>{(token as Tokens.Codespan).text}</code>;
      case "br":
        return <br key={key} />;
      case "link": {
        const t = token as Tokens.Link;
        const href = safeHref(t.href);
        if (!href) return inline(t.tokens);
        return (
          <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
            {inline(t.tokens)}
          </a>
        );
      }
      case "image": {
        const t = token as Tokens.Image;
        const href = safeHref(t.href);
        const label = `image: ${t.text || t.href}`;
        return href ? (
          <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
            [{label}]
          </a>
        ) : (
          `[${label}]`
        );
      }
      case "checkbox":
        return null;
      default:
        // Inline HTML (`<script>`, `<img onerror>`) and unknown tokens: literal text.
        return "raw" in token ? token.raw : "";
    }
  });
}

const entities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  nbsp: "\u00a0",
};

/** marked keeps character references in text; show the characters (as text, so still inert). */
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name] ?? "");
}
