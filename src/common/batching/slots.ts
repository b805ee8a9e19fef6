/** At most `size` holders at once; the others wait for a slot in the order they asked. */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Waits for a slot; the answer gives it back (once, however often it is called). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
