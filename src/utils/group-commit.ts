/**
 * @module utils/group-commit
 * Group commit for the stores: writes that arrive in the same turn of the event loop go to the database together (one
 * transaction, one WAL flush), and each caller still hears back only once its write is committed. A batch that fails
 * is retried one write at a time, so one bad row fails only its own caller. The Redis change feed sends each turn's
 * changes as one message with it, too.
 *
 * With `maxInFlight`, no more batches than that run at once: writes arriving while they run wait for one to end and
 * go together, so a busy store commits fewer, fuller batches (PostgreSQL's creates: with the load split over two
 * replicas, one batch per turn gave each ~7–10 creates instead of ~17, and every batch costs a statement and a
 * receipt's signature). A write that finds nothing running still goes out at the end of its turn.
 */

interface Pending<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Collects the writes of one event-loop turn and runs them as one batch. */
export class GroupCommit<I, R> {
  private pending: Pending<I, R>[] = [];
  private running = 0;
  private scheduled = false;

  /**
   * @param run writes `items` atomically and resolves with one result per item, in order; it must write nothing when
   *   it throws, since every item is then retried on its own.
   * @param maxInFlight the most batches that run at once (see the module comment); unbounded by default.
   */
  constructor(
    private readonly run: (items: I[]) => R[] | Promise<R[]>,
    private readonly maxInFlight = Infinity,
  ) {}

  /** Queues `item` for this turn's batch (or the next one a running batch makes room for); resolves once committed. */
  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes at the end of this turn, unless a flush is due already or every slot is taken (a batch's end calls it). */
  private schedule(): void {
    if (this.scheduled || this.pending.length === 0 || this.running >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0 || this.running >= this.maxInFlight) return;
    const batch = this.pending;
    this.pending = [];
    this.running++;
    try {
      await this.commit(batch);
    } finally {
      this.running--;
      this.schedule();
    }
  }

  private async commit(batch: Pending<I, R>[]): Promise<void> {
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
