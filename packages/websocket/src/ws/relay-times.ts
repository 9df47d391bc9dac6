/** Bucket bounds in seconds: a chunk's relay is normally well under a millisecond. */
const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

/**
 * How long frames took from their append to the log (for a streamed chunk: the provider read that
 * carried it) to the socket write, as a Prometheus histogram. Recorded per frame on the hot path, so
 * it is a plain array increment, not a prom-client `observe` (label hashing per call); the registry
 * reads it at scrape time through `get`.
 */
export class RelayTimes {
  readonly name = "agentwire_chunk_relay_seconds";
  readonly help = "From a frame's append to the log (a chunk's provider read) to its socket write";
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly counts = new Float64Array(BOUNDS.length + 1);
  private sum = 0;

  /** One frame written to a socket `ms` after its append. */
  record(ms: number): void {
    const seconds = ms / 1000;
    let i = 0;
    while (i < BOUNDS.length && seconds > (BOUNDS[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += seconds;
  }

  /** The histogram in prom-client's metric shape (cumulative buckets, sum, count). */
  async get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    let cumulative = 0;
    BOUNDS.forEach((le, i) => {
      cumulative += this.counts[i] as number;
      values.push({ metricName: `${this.name}_bucket`, labels: { le }, value: cumulative });
    });
    cumulative += this.counts[BOUNDS.length] as number;
    values.push({ metricName: `${this.name}_bucket`, labels: { le: "+Inf" }, value: cumulative });
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.sum });
    values.push({ metricName: `${this.name}_count`, labels: {}, value: cumulative });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
  }
}
