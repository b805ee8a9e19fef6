import { AsyncLocalStorage } from 'node:async_hooks';
import DataLoader from 'dataloader';

export interface StatementBatcherOptions {
  /** The most items one statement takes. */
  maxBatchSize: number;
  /** Statements of this batcher running at once; items arriving meanwhile gather for the next one. */
  maxInFlight: number;
}

/**
 * Turns many concurrent single-row statements into few set-based ones: items given while
 * `maxInFlight` statements run wait and go together in the next (the busier the database, the larger
 * the batches; an idle one runs each item at once, on the next turn of the event loop). `run` answers
 * one result per item, in order (an Error in an item's place rejects that item's caller alone). Built on
 * DataLoader, without its cache (each item is a write).
 */
export class StatementBatcher<In, Out> {
  private readonly loader: DataLoader<In, Out, In>;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(run: (items: readonly In[]) => Promise<Array<Out | Error>>, options: StatementBatcherOptions) {
    // A statement carries the items of many callers: it runs in the context the batcher was built in
    // (no ambient transaction), never in the transaction of whichever caller happened to trigger it.
    run = AsyncLocalStorage.bind(run);
    this.loader = new DataLoader<In, Out, In>(
      async (items) => {
        this.inFlight++;
        try {
          return await run(items);
        } finally {
          this.inFlight--;
          this.waiting.shift()?.();
        }
      },
      {
        cache: false,
        maxBatchSize: options.maxBatchSize,
        batchScheduleFn: (dispatch) => {
          if (this.inFlight < options.maxInFlight) setImmediate(dispatch);
          else this.waiting.push(dispatch);
        },
      },
    );
  }

  /** Runs the item in the next statement; its own result. */
  add(item: In): Promise<Out> {
    return this.loader.load(item);
  }
}
