/**
 * Lateness of paced packets (how long after its slot on the 20 ms grid each packet left), kept as a
 * fixed histogram of 0.1 ms buckets up to 1 s so that a long-lived worker can keep one without
 * growing: quantiles are exact to the bucket.
 */
export class LatenessHistogram {
  private static readonly BUCKET_MS = 0.1;
  private static readonly BUCKETS = 10_000;
  private readonly counts = new Uint32Array(LatenessHistogram.BUCKETS + 1);
  private total = 0;
  private maxMs = 0;

  record(latenessMs: number): void {
    const ms = Math.max(0, latenessMs);
    const bucket = Math.min(Math.floor(ms / LatenessHistogram.BUCKET_MS), LatenessHistogram.BUCKETS);
    this.counts[bucket]++;
    this.total++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  get count(): number {
    return this.total;
  }

  get max(): number {
    return this.maxMs;
  }

  /** The upper edge of the bucket holding quantile q (0–1), in ms; 0 when nothing was recorded. */
  quantile(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil(q * this.total);
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket];
      if (seen >= rank) return Math.min((bucket + 1) * LatenessHistogram.BUCKET_MS, this.maxMs);
    }
    return this.maxMs;
  }

  /** Adds another histogram's counts to this one (a process-wide figure from per-call ones). */
  merge(other: LatenessHistogram): void {
    for (let bucket = 0; bucket < this.counts.length; bucket++) this.counts[bucket] += other.counts[bucket];
    this.total += other.total;
    this.maxMs = Math.max(this.maxMs, other.maxMs);
  }
}
