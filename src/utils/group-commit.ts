/**
 * @module utils/group-commit
 * Group commit for the stores: writes that arrive in the same turn of the event loop go to the database together (one
 * transaction, one WAL flush), and each caller still hears back only once its write is committed. A batch that fails
 * is retried one write at a time, so one bad row fails only its own caller. The Redis change feed sends each turn's
 * changes as one message with it, too.
 */

interface Pending<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Collects the writes of one event-loop turn and runs them as one batch. */
export class GroupCommit<I, R> {
  private pending: Pending<I, R>[] = [];

  /**
   * @param run writes `items` atomically and resolves with one result per item, in order; it must write nothing when
   *   it throws, since every item is then retried on its own.
   */
  constructor(private readonly run: (items: I[]) => R[] | Promise<R[]>) {}

  /** Queues `item` for this turn's batch; resolves once it is committed. */
  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    let results: R[];
    try {
      results = await this.run(batch.map((p) => p.item));
    } catch (error) {
      // A batch of one has nobody to spare: retrying it would only wait out a busy lock a second time.
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const p of batch) {
        try {
          p.resolve((await this.run([p.item]))[0]!);
        } catch (error) {
          p.reject(error);
        }
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
  }
}
