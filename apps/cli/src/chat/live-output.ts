import { createLogUpdate } from "log-update";
import { STATUS_REFRESH_MS } from "./status-lines.js";
import type { TurnOutput } from "./turn-output.js";

/**
 * A terminal's output: complete lines are written for good, above a live area that log-update owns and
 * redraws. The live area holds the answer's unfinished line and the status lines under it, so
 * nothing printed for good is ever overwritten, and the status never lands in the middle of the text.
 */
export class LiveOutput implements TurnOutput {
  private readonly log: ReturnType<typeof createLogUpdate>;
  /** Text after the last newline: shown in the live area until its line ends. */
  private partial = "";
  private lines: (() => string[]) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stream: NodeJS.WriteStream) {
    this.log = createLogUpdate(stream, { showCursor: false });
  }

  /** Columns of the terminal, for fitting status lines. */
  get columns(): number {
    return this.stream.columns || 80;
  }

  write(text: string): void {
    if (!text) return;
    // Tabs would make log-update miscount the live area's width; spaces do not.
    const all = this.partial + text.replace(/\t/g, "    ");
    const cut = all.lastIndexOf("\n");
    if (cut >= 0) {
      this.writeForGood(all.slice(0, cut + 1));
      this.partial = all.slice(cut + 1);
    } else {
      this.partial = all;
    }
    this.draw();
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

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.lines = undefined;
    this.writeForGood(this.partial ? `${this.partial}\n` : "");
    this.partial = "";
    this.log.done();
  }

  /**
   * Erases the live area and writes `text` where it was. Not log-update's persist(): that one cuts
   * text taller than the terminal, and an answer may well be.
   */
  private writeForGood(text: string): void {
    this.log.clear();
    if (text) this.stream.write(text);
  }

  private draw(): void {
    const live = [...(this.partial ? [this.partial] : []), ...(this.lines?.() ?? [])];
    if (live.length === 0) this.log.clear();
    else this.log(live.join("\n"));
  }
}
