import type { DataSource } from 'typeorm';

/**
 * Sets one timestamp column of outbox rows to now(), once: the ids added within `delayMs` of the
 * first are written by one UPDATE, and every caller's promise settles with it.
 */
export class BatchedStamp {
  private pending: { ids: string[]; done: Promise<void> } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly column: 'dispatched_at' | 'completed_at',
    private readonly delayMs: number,
  ) {}

  add(...ids: string[]): Promise<void> {
    if (!this.pending) {
      const batch: string[] = [];
      const done = new Promise((resolve) => setTimeout(resolve, this.delayMs)).then(async () => {
        this.pending = undefined;
        await this.dataSource.query(
          `UPDATE outbox_messages SET ${this.column} = now() WHERE id = ANY($1::uuid[]) AND ${this.column} IS NULL`,
          [batch],
        );
      });
      this.pending = { ids: batch, done };
    }
    this.pending.ids.push(...ids);
    return this.pending.done;
  }
}
