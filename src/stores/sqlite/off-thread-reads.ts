/**
 * @module stores/sqlite/off-thread-reads
 * Long read-only aggregates on a worker thread. better-sqlite3 is synchronous: a statement that reads a quarter of a
 * large history (insights over 90 days of a million requests: ~1.5 s) would hold the gateway's only thread, and every
 * approval, long-poll and card behind it, for as long as it runs. Here each batch of statements runs on a worker
 * with a read-only connection of its own (a small page cache, so the walk stays out of the gateway's memory), one
 * batch at a time, and the worker exits when done: insights are read now and then, so no thread idles between them.
 */
import { Worker } from 'node:worker_threads';
import { InternalError } from '../../api/errors.js';
import { SQLITE_DRIVER } from './driver.js';

/** One statement and its named parameters. */
export interface OffThreadRead {
  sql: string;
  params: Record<string, unknown>;
}

/**
 * A write after the reads (the insights rollup's refresh): in one immediate transaction, `before`'s statements, then
 * `insert` run once per row of the first read (its named parameters are the row's columns), then `after`'s.
 */
export interface OffThreadWrite {
  before: OffThreadRead[];
  insert: string;
  after: OffThreadRead[];
}

// Plain CommonJS passed as a string: it runs the same way from the sources (tsx, vitest) and from dist/ (as the
// checkpointer's worker does).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  const write = workerData.write;
  db = new Database(workerData.path, { readonly: !write, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -4096');
  const results = workerData.reads.map((read) => db.prepare(read.sql).all(read.params));
  if (write) {
    const insert = db.prepare(write.insert);
    db.transaction(() => {
      for (const s of write.before) db.prepare(s.sql).run(s.params);
      for (const row of results[0]) insert.run(row);
      for (const s of write.after) db.prepare(s.sql).run(s.params);
    }).immediate();
  }
  parentPort.postMessage({ results: write ? results.map((rows) => [rows.length]) : results });
} catch (error) {
  parentPort.postMessage({ error: String((error && error.message) || error) });
} finally {
  if (db) db.close();
}
`;

/** Runs statements on worker threads against one database file, a batch at a time. */
export class OffThreadReads {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly path: string) {}

  /** The rows of each of `reads`, in order, read on a worker thread (after any batch before it). */
  all(reads: OffThreadRead[]): Promise<unknown[][]> {
    const run = this.queue.then(() => this.runOnWorker(reads));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `read` and then `write` with its rows on a worker thread with a writable connection of its own (after any
   * batch before it); resolves with how many rows were written.
   */
  async readThenWrite(read: OffThreadRead, write: OffThreadWrite): Promise<number> {
    const run = this.queue.then(() => this.runOnWorker([read], write));
    this.queue = run.catch(() => undefined);
    return (await run)[0]![0] as number;
  }

  private runOnWorker(reads: OffThreadRead[], write?: OffThreadWrite): Promise<unknown[][]> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER, {
        eval: true,
        workerData: { driver: SQLITE_DRIVER, path: this.path, reads, write },
      });
      // A read in flight never keeps a process alive that is shutting down.
      worker.unref();
      let answered = false;
      worker.once('message', (message: { results: unknown[][] } | { error: string }) => {
        answered = true;
        if ('error' in message) reject(new InternalError(`insights read failed: ${message.error}`));
        else resolve(message.results);
      });
      worker.once('error', (error) => {
        answered = true;
        reject(error);
      });
      worker.once('exit', (code) => {
        if (!answered) reject(new InternalError(`insights read worker exited with code ${code} before answering`));
      });
    });
  }
}
