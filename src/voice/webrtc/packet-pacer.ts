import { LatenessHistogram } from './lateness-histogram.js';

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
  private fail!: (error: unknown) => void;
  readonly done = new Promise<PacedResult>((resolve, reject) => {
    this.finish = resolve;
    this.fail = reject;
  });

  constructor(
    private readonly start: number,
    private readonly next: () => Buffer | undefined,
    private readonly send: (payload: Buffer, index: number, dueAt: number) => void,
    private readonly intervalMs: number,
    private readonly histograms: LatenessHistogram[],
  ) {
    try {
      this.pending = next();
    } catch (error) {
      this.fail(error);
    }
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
      pacingWindow.record(this, now - dueAt);
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

  /** Ends it with `error` (its producer or sender threw): `done` rejects, nothing more is sent. */
  abort(error: unknown): void {
    this.pending = undefined;
    this.fail(error);
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
    for (const pacer of this.pacers) {
      try {
        if (!pacer.sendDue(now)) this.pacers.delete(pacer);
      } catch (error) {
        // One prompt's failure (a frame that would not encode, a closed sender) ends that prompt
        // only; the clock keeps every other call's packets going.
        this.pacers.delete(pacer);
        pacer.abort(error);
      }
    }
    this.schedule();
  }
}

const clock = new PacingClock();

/** The process's packets over a window: how late they left against their slots. */
export interface PacingReport {
  /** Epoch ms of the window's first and last packet. */
  from: number;
  to: number;
  /** Prompts that sent packets in the window. */
  prompts: number;
  packets: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** A report covers at most this long, so a worker busy for hours still reports every minute. */
const REPORT_WINDOW_MS = 60_000;

/**
 * Every paced packet of the process over windows of at most a minute (one report per window that
 * sent anything, so an idle worker says nothing): the figure an operator watches for a worker
 * carrying too many calls.
 */
class PacingWindow {
  private histogram = new LatenessHistogram();
  private prompts = new WeakSet<object>();
  private promptCount = 0;
  private from = 0;
  private to = 0;
  private closer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(report: PacingReport) => void>();

  /** One packet of `prompt` left `latenessMs` after its slot. */
  record(prompt: object, latenessMs: number): void {
    if (!this.closer) this.open();
    if (!this.prompts.has(prompt)) {
      this.prompts.add(prompt);
      this.promptCount++;
    }
    this.to = Date.now();
    this.histogram.record(latenessMs);
  }

  listen(listener: (report: PacingReport) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reports the window so far (if it sent anything) and starts a new one. */
  close(): void {
    clearTimeout(this.closer);
    this.closer = undefined;
    const { histogram } = this;
    if (histogram.count === 0) return;
    const report: PacingReport = {
      from: this.from,
      to: this.to,
      prompts: this.promptCount,
      packets: histogram.count,
      p50Ms: histogram.quantile(0.5),
      p99Ms: histogram.quantile(0.99),
      maxMs: histogram.max,
    };
    this.histogram = new LatenessHistogram();
    this.prompts = new WeakSet();
    this.promptCount = 0;
    for (const listener of this.listeners) listener(report);
  }

  private open(): void {
    this.from = Date.now();
    this.closer = setTimeout(() => this.close(), REPORT_WINDOW_MS).unref();
  }
}

const pacingWindow = new PacingWindow();

/** Calls `listener` with each window's report; returns the function that stops it. */
export function onPacingReport(listener: (report: PacingReport) => void): () => void {
  return pacingWindow.listen(listener);
}

/** Ends the current window now (a worker shutting down reports its last minute). */
export function closePacingWindow(): void {
  pacingWindow.close();
}

/**
 * Sends `next()`'s packets on a grid of `intervalMs` from the moment it is called: packet k leaves
 * at start + k × interval or as soon after as the clock ticks (then every packet already due leaves
 * at once, none is dropped), and its lateness goes to the histograms and to the process's
 * {@link PacingReport}. The first packet leaves at once. When `next` or `send` throws, `done` rejects
 * with the error and that prompt ends; no other prompt is touched.
 */
export function pacePackets(
  next: () => Buffer | undefined,
  send: (payload: Buffer, index: number, dueAt: number) => void,
  intervalMs: number,
  histograms: LatenessHistogram[],
): PacedSend {
  const pacer = new Pacer(performance.now(), next, send, intervalMs, histograms);
  try {
    if (pacer.sendDue(performance.now())) clock.add(pacer);
  } catch (error) {
    pacer.abort(error);
  }
  return {
    done: pacer.done,
    stop: () => {
      pacer.stop();
      clock.remove(pacer);
    },
  };
}
