import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How much faster than its channel's interval a process late for its reserved starts may send,
 * two sends at once at most: a tenth of a second of delay at 300/s is 30 overdue sends, which let
 * out at once would be 330 in that second at the provider.
 */
export const CATCH_UP_SPEED = 1.05;
const CATCH_UP_BURST = 2;

/**
 * One process's recent sends on one channel, let out so that no window of `windowMs` holds more
 * than the channel's tier of them (Meta's messages per second), however late they come, and no
 * faster than {@link CATCH_UP_SPEED} times the channel's interval.
 *
 * The channel's reserved starts run at its tier less a margin (a second and 10 ms for each tier's
 * worth), so a process that came late (starved of CPU, its event loop busy) makes up its overdue
 * sends out of that margin and of the room its stall left in the window, and no more: after a
 * long stall it stays behind, and its channel runs under the tier, rather than over it.
 *
 * It counts this process's sends only: several processes that come late at the same moment each
 * make up their own, and together may exceed the tier in that window by what they make up.
 */
export class LocalSendWindow {
  /** Send times (performance.now()) within the last window, oldest first from `head`. */
  private times: number[] = [];
  private head = 0;
  private tokens = CATCH_UP_BURST;
  private tokensAt = performance.now();

  constructor(private readonly windowMs: number) {}

  /**
   * Resolves when a send may leave a channel of `limit` sends a window, its starts `intervalMs`
   * apart, and counts it; answers the instant (performance.now()) it was counted at, which a caller's
   * own clock reading after its await can trail by a few ms on a busy event loop.
   */
  async take(intervalMs: number, limit: number): Promise<number> {
    const perMs = CATCH_UP_SPEED / intervalMs;
    for (;;) {
      const now = performance.now();
      this.forgetBefore(now - this.windowMs);
      this.tokens = Math.min(CATCH_UP_BURST, this.tokens + (now - this.tokensAt) * perMs);
      this.tokensAt = now;
      const inWindow = this.times.length - this.head;
      const windowWait = inWindow >= limit ? this.times[this.times.length - limit] + this.windowMs - now : 0;
      const catchUpWait = this.tokens >= 1 ? 0 : (1 - this.tokens) / perMs;
      const wait = Math.max(windowWait, catchUpWait);
      if (wait <= 0) {
        this.tokens -= 1;
        this.times.push(now);
        return now;
      }
      await sleep(wait);
    }
  }

  /** Whether the window is empty (nothing sent within it): such a window can be dropped. */
  isIdle(now = performance.now()): boolean {
    this.forgetBefore(now - this.windowMs);
    return this.times.length === this.head;
  }

  private forgetBefore(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head] <= cutoff) this.head++;
    // Compact now and then rather than shift() on each send.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
