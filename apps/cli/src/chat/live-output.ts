import { LiveRegion } from "./live-region.js";
import { STATUS_REFRESH_MS } from "./status-lines.js";
import type { TurnOutput } from "./turn-output.js";

/**
 * A terminal's output: complete lines are written for good, above a live region that is redrawn.
 * The region holds the answer's unfinished line and the status lines under it, so nothing printed
 * for good is ever overwritten, and the status never lands in the middle of the text.
 */
export class LiveOutput implements TurnOutput {
  private readonly region: LiveRegion;
  /** Text after the last newline: shown in the live region until its line ends. */
  private partial = "";
  private lines: (() => string[]) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stream: NodeJS.WriteStream) {
    this.region = new LiveRegion(stream);
  }

  /** Columns of the terminal, for fitting status lines. */
  get columns(): number {
    return this.stream.columns || 80;
  }

  write(text: string): void {
    if (!text) return;
    // A tab's width depends on its column; spaces keep the region's row count exact.
    const all = this.partial + text.replace(/\t/g, "    ");
    const cut = all.lastIndexOf("\n");
    if (cut < 0) {
      this.partial = all;
      this.draw();
      return;
    }
    this.partial = all.slice(cut + 1);
    this.draw(all.slice(0, cut + 1));
  }

  start(lines: () => string[]): void {
    this.lines = lines;
    this.timer ??= setInterval(() => this.draw(), STATUS_REFRESH_MS);
    this.timer.unref();
    this.draw();
  }

  refresh(): void {
    this.draw();
  }

  typed(): void {
    this.region.lineEchoed();
    this.draw();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.lines = undefined;
    this.region.done(this.partial ? `${this.partial}\n` : "");
    this.partial = "";
  }

  /** Writes `above` for good (whole lines; the terminal wraps them) and redraws the region under it. */
  private draw(above = ""): void {
    this.region.draw([...(this.partial ? [this.partial] : []), ...(this.lines?.() ?? [])], above);
  }
}
