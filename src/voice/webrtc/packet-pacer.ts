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
 * Sends `next()`'s packets on a grid of `intervalMs` from the moment it is called: packet k leaves
 * at start + k × interval or as soon after as the event loop allows (then every packet already due
 * leaves at once, none is dropped), and its lateness goes to the histograms. The packet after the one
 * sent is produced right after the send, so that producing it (encoding) delays nothing due now.
 */
export function pacePackets(
  next: () => Buffer | undefined,
  send: (payload: Buffer, index: number, dueAt: number) => void,
  intervalMs: number,
  histograms: LatenessHistogram[],
): PacedSend {
  const start = performance.now();
  let index = 0;
  let pending = next();
  let timer: NodeJS.Timeout | undefined;
  let finish!: (result: PacedResult) => void;
  const done = new Promise<PacedResult>((resolve) => (finish = resolve));

  const tick = (): void => {
    timer = undefined;
    const now = performance.now();
    while (pending && start + index * intervalMs <= now) {
      const dueAt = start + index * intervalMs;
      for (const histogram of histograms) histogram.record(now - dueAt);
      send(pending, index, dueAt);
      index++;
      pending = next();
    }
    if (!pending) return finish({ packets: index, stopped: false });
    timer = setTimeout(tick, Math.max(0, start + index * intervalMs - performance.now()));
  };
  tick();

  return {
    done,
    stop: () => {
      if (!pending) return;
      pending = undefined;
      if (timer) clearTimeout(timer);
      finish({ packets: index, stopped: true });
    },
  };
}
