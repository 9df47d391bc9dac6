import { createInterface, type Interface } from "node:readline";

/**
 * Lines of standard input, one `next()` at a time. Lines that come before they are asked for (piped
 * input, or typed ahead) wait in a queue instead of being lost; a pending `next()` can be cancelled.
 */
export class LineReader {
  private readonly rl: Interface;
  private readonly queued: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private tapped: ((line: string) => void) | undefined;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    // terminal: false leaves a terminal in its line mode: the kernel echoes and edits the line, and
    // Ctrl-C stays a SIGINT (a raw-mode readline would swallow it while a turn runs).
    this.rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.rl.on("line", (line) => {
      if (this.waiting) this.settle(line);
      else if (this.tapped) this.tapped(line);
      else this.queued.push(line);
    });
    this.rl.on("close", () => {
      this.ended = true;
      this.settle(undefined);
    });
  }

  /** The next line, or undefined at the end of input or when cancelled. */
  next(): Promise<string | undefined> {
    const line = this.queued.shift();
    if (line !== undefined || this.ended) return Promise.resolve(line);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /**
   * Hands lines that nobody asks for (typed while a turn runs) to `handler` as they come, until the
   * returned function is called; a pending `next()` (a question's prompt) still gets its line first.
   */
  tap(handler: (line: string) => void): () => void {
    this.tapped = handler;
    return () => {
      if (this.tapped === handler) this.tapped = undefined;
    };
  }

  /** Settles a pending `next()` with undefined (the question it was for went away). */
  cancel(): void {
    this.settle(undefined);
  }

  /** Stops reading standard input, so the process can exit. */
  close(): void {
    this.rl.close();
  }

  private settle(line: string | undefined): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(line);
  }
}
