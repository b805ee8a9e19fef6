import type { LatenessHistogram } from './lateness-histogram.js';

export interface PacedResult {
  packets: number;
  /** Whether stop() ended it before the last packet. */
  stopped: boolean;
}

export interface PacedSend {
  readonly done: Promise<PacedResult>;
  stop(): void;
}

/**
 * At most one clock tick this often, however many prompts play: a hundred calls' packets, 20 ms
 * apart each but at a hundred offsets, go out in a few batches per frame rather than as 5,000
 * timers a second (the event loop, not the CPU, was what fell behind).
 */
const MIN_TICK_MS = 4;

/** One prompt's packets on their grid. */
class Pacer {
  private index = 0;
  private pending: Buffer | undefined;
  private finish!: (result: PacedResult) => void;
  readonly done = new Promise<PacedResult>((resolve) => (this.finish = resolve));

  constructor(
    private readonly start: number,
    private readonly next: () => Buffer | undefined,
    private readonly send: (payload: Buffer, index: number, dueAt: number) => void,
    private readonly intervalMs: number,
    private readonly histograms: LatenessHistogram[],
  ) {
    this.pending = next();
  }

  get nextDueAt(): number {
    return this.start + this.index * this.intervalMs;
  }

  get finished(): boolean {
    return !this.pending;
  }

  /** Sends every packet due by `now` (none is dropped when the loop was late); false once the last has gone. */
  sendDue(now: number): boolean {
    while (this.pending && this.nextDueAt <= now) {
      const dueAt = this.nextDueAt;
      for (const histogram of this.histograms) histogram.record(now - dueAt);
      this.send(this.pending, this.index, dueAt);
      this.index++;
      // The packet after the one sent is produced right after the send: producing it delays nothing due now.
      this.pending = this.next();
    }
    if (this.pending) return true;
    this.finish({ packets: this.index, stopped: false });
    return false;
  }

  stop(): void {
    if (!this.pending) return;
    this.pending = undefined;
    this.finish({ packets: this.index, stopped: true });
  }
}

/** The process's one pacing clock: a timer for the earliest packet due, never more often than MIN_TICK_MS. */
class PacingClock {
  private readonly pacers = new Set<Pacer>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private lastTick = -Infinity;

  add(pacer: Pacer): void {
    this.pacers.add(pacer);
    this.schedule();
  }

  remove(pacer: Pacer): void {
    this.pacers.delete(pacer);
  }

  private schedule(): void {
    let due = Infinity;
    for (const pacer of this.pacers) due = Math.min(due, pacer.nextDueAt);
    if (due === Infinity) return;
    const at = Math.max(due, this.lastTick + MIN_TICK_MS);
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - performance.now()));
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    this.lastTick = now;
    for (const pacer of this.pacers) if (!pacer.sendDue(now)) this.pacers.delete(pacer);
    this.schedule();
  }
}

const clock = new PacingClock();

/**
 * Sends `next()`'s packets on a grid of `intervalMs` from the moment it is called: packet k leaves
 * at start + k × interval or as soon after as the clock ticks (then every packet already due leaves
 * at once, none is dropped), and its lateness goes to the histograms. The first packet leaves at once.
 */
export function pacePackets(
  next: () => Buffer | undefined,
  send: (payload: Buffer, index: number, dueAt: number) => void,
  intervalMs: number,
  histograms: LatenessHistogram[],
): PacedSend {
  const pacer = new Pacer(performance.now(), next, send, intervalMs, histograms);
  if (pacer.sendDue(performance.now())) clock.add(pacer);
  return {
    done: pacer.done,
    stop: () => {
      pacer.stop();
      clock.remove(pacer);
    },
  };
}
