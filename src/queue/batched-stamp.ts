import type { DataSource } from 'typeorm';

/**
 * Sets one timestamp column of outbox rows to now(), once: the ids added within `delayMs` of the
 * first are written by one UPDATE, and every caller's promise settles with it. One UPDATE runs at a
 * time: ids added while one runs go in the next, so a slow database gets fewer, larger statements.
 */
export class BatchedStamp {
  private pending: { ids: string[]; done: Promise<void> } | undefined;
  private previous: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly column: 'dispatched_at' | 'completed_at',
    private readonly delayMs: number,
  ) {}

  add(...ids: string[]): Promise<void> {
    if (!this.pending) {
      const batch: string[] = [];
      const previous = this.previous;
      const done = new Promise((resolve) => setTimeout(resolve, this.delayMs))
        .then(() => previous)
        .then(async () => {
          this.pending = undefined;
          await this.dataSource.query(
            this.column === 'dispatched_at'
              ? // A row a relay round has locked is being dispatched and stamped by that round: waiting for it could deadlock with it.
                `UPDATE outbox_messages SET dispatched_at = now()
                  WHERE id IN (SELECT id FROM outbox_messages WHERE id = ANY($1::uuid[]) AND dispatched_at IS NULL FOR UPDATE SKIP LOCKED)`
              : `UPDATE outbox_messages SET ${this.column} = now() WHERE id = ANY($1::uuid[]) AND ${this.column} IS NULL`,
            [batch],
          );
        });
      this.pending = { ids: batch, done };
      this.previous = done.catch(() => undefined);
    }
    this.pending.ids.push(...ids);
    return this.pending.done;
  }
}
