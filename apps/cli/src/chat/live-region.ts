import stringWidth from "string-width";

const ESC = "\u001b[";
const HIDE_CURSOR = `${ESC}?25l`;
const SHOW_CURSOR = `${ESC}?25h`;
// Terminals that know it paint a whole redraw at once; the others ignore it.
const SYNC_START = `${ESC}?2026h`;
const SYNC_END = `${ESC}?2026l`;

const graphemes = new Intl.Segmenter();

/**
 * The rows at the bottom of a terminal that are drawn again and again (the unfinished line and the
 * status), with text written for good above them. It knows how many rows it occupies and never moves
 * the cursor above them; it moves down only by writing newlines, which scroll at the bottom row (a
 * cursor-down does not, and a redraw that relied on one erased lines above once the screen was full).
 */
export class LiveRegion {
  /** Rows the region occupies; the cursor is on the last of them. */
  private rows = 0;
  private cursorHidden = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  /**
   * Replaces the region with `lines`, after writing `above` for good where the region began; `above`
   * is empty or ends with a newline. Lines are cut into rows here, so the count is exact, and only the
   * last rows that fit on the screen are drawn (the cursor cannot go up past its top).
   */
  draw(lines: string[], above = ""): void {
    const columns = this.stream.columns || 80;
    const rows = lines.flatMap((line) => rowsOf(line, columns)).slice(-maxRows(this.stream));
    let out = this.erase() + above;
    if (rows.length > 0 && !this.cursorHidden) {
      out += HIDE_CURSOR;
      this.cursorHidden = true;
      process.once("exit", this.showCursor);
    }
    out += rows.join("\n");
    this.rows = rows.length;
    if (out) this.stream.write(SYNC_START + out + SYNC_END);
  }

  /**
   * The terminal echoed a line the user typed under the region (its Enter moved the cursor one row
   * down): the next redraw erases that row too.
   */
  lineEchoed(): void {
    if (this.rows > 0) this.rows += 1;
  }

  /** Erases the region and shows the cursor again; text written next starts where the region began. */
  done(above = ""): void {
    this.draw([], above);
    if (this.cursorHidden) this.showCursor();
  }

  /** To the region's first row, then erase to the end of the screen: nothing of it stays, nothing above goes. */
  private erase(): string {
    if (this.rows === 0) return "";
    return `\r${this.rows > 1 ? `${ESC}${this.rows - 1}A` : ""}${ESC}J`;
  }

  private readonly showCursor = () => {
    process.off("exit", this.showCursor);
    this.cursorHidden = false;
    this.stream.write(SHOW_CURSOR);
  };
}

/** The rows a terminal `columns` wide needs for `line`, cut between graphemes (a wide one never split). */
function rowsOf(line: string, columns: number): string[] {
  if (stringWidth(line) <= columns) return [line];
  const rows: string[] = [];
  let row = "";
  let width = 0;
  for (const { segment } of graphemes.segment(line)) {
    const w = stringWidth(segment);
    if (width + w > columns && row !== "") {
      rows.push(row);
      row = "";
      width = 0;
    }
    row += segment;
    width += w;
  }
  rows.push(row);
  return rows;
}

/** One row short of the screen, so a redraw's cursor-up always reaches the region's first row. */
function maxRows(stream: NodeJS.WriteStream): number {
  return Math.max(1, (stream.rows || 24) - 1);
}
