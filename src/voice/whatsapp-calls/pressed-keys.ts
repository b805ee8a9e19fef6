/**
 * The keys a WhatsApp user presses during a call, in order, for a dialog that asks for one at a
 * time. At most one waiter at a time; a waiter is forgotten as soon as it is answered or times
 * out, so a key pressed later is never taken by a wait that is already over.
 */
export class PressedKeys {
  private readonly keys: string[] = [];
  private waiter: ((key: string | null) => void) | undefined;

  push(key: string): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(key);
    } else this.keys.push(key);
  }

  /** Forgets the keys pressed so far (those of an earlier question). */
  clear(): void {
    this.keys.length = 0;
  }

  /** The first key pressed (already, or within `timeoutMs`), or null for silence. */
  next(timeoutMs: number): Promise<string | null> {
    const pressed = this.keys.shift();
    if (pressed !== undefined) return Promise.resolve(pressed);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve(null);
      }, timeoutMs);
      this.waiter = (key) => {
        clearTimeout(timer);
        resolve(key);
      };
    });
  }

  /** Ends a wait in progress as silence (the call ended meanwhile). */
  cancel(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(null);
  }
}
