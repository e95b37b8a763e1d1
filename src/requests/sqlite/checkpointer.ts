/**
 * @module requests/sqlite/checkpointer
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that fills the WAL past 1,000
 * pages: that commit copies the pages into the database file and fsyncs it, on the gateway's only thread, so one
 * call in a few hundred waited ~10 ms for it (policy-allowed calls from one client: p99 15 ms, 4 ms without).
 * Here a worker thread with its own connection runs a PASSIVE checkpoint every second (it never blocks readers or
 * writers), and the gateway's connection stops checkpointing on its own. A passive checkpoint never starts the WAL
 * over while commits keep coming, so past `restartFrames` the worker also TRUNCATEs it (a moment's wait for writers,
 * the frames being copied already): a gateway under sustained writes grew its WAL to 253 MB in 66,000 creates.
 *
 * Durability does not change: a commit is in the WAL before it returns either way; a checkpoint only moves committed
 * pages into the main file. Should the worker die, the connection goes back to checkpointing itself, so the WAL
 * cannot grow without bound.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { SQLITE_DRIVER } from './driver.js';

/** What one checkpoint did: WAL frames in the log, and how many of them are now in the database file. */
export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

/** A running background checkpointer; {@link close} it before closing the connection. */
export interface Checkpointer {
  /** Runs a checkpoint now (tests, shutdown) and resolves with what it did. */
  checkpointNow(): Promise<CheckpointResult>;
  /** Stops the worker after a last checkpoint, and gives checkpointing back to the connection. */
  close(): Promise<void>;
}

/** Options of {@link startCheckpointer}. */
export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 1000 ms). */
  everyMs?: number;
  /** WAL frames past which a checkpoint also empties the WAL (default 4096: 16 MB of 4 KB pages). */
  restartFrames?: number;
  /** Told when the worker fails (the connection checkpoints on its own again). */
  onError?: (error: unknown) => void;
}

// The worker is plain CommonJS passed as a string: it runs the same way from the sources (tsx, vitest) and from dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  let [row] = db.pragma('wal_checkpoint(PASSIVE)');
  // Under writes that never pause, a passive checkpoint is always a few frames behind when the next commit comes, so
  // the WAL never starts over and grows for ever (253 MB after 66,000 creates). Past the limit, a TRUNCATE finishes
  // the last frames, waits for readers to leave the WAL, and empties it; the frames were just copied, so the
  // gateway's writes wait for it only a moment, once per limit's worth of commits.
  if (row.log >= workerData.restartFrames) [row] = db.pragma('wal_checkpoint(TRUNCATE)');
  return { log: row.log, checkpointed: row.checkpointed };
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message.type === 'now') parentPort.postMessage({ id: message.id, result: checkpoint() });
  if (message.type === 'close') {
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Starts checkpointing `connection`'s database file from a worker thread and turns the connection's own automatic
 * checkpoints off.
 * @example const checkpointer = startCheckpointer(open.sqlite, path); …; await checkpointer.close(); open.close();
 */
export function startCheckpointer(connection: Database.Database, path: string, options: CheckpointerOptions = {}): Checkpointer {
  const worker = new Worker(WORKER, { eval: true, workerData: { driver: SQLITE_DRIVER, path, everyMs: options.everyMs ?? 1000, restartFrames: options.restartFrames ?? 4096 } });
  // A checkpointer must never keep a process alive that has nothing else to do.
  worker.unref();
  connection.pragma('wal_autocheckpoint = 0');
  const asked = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: unknown) => void }>();
  let next = 0;
  let failed: unknown = null;
  const takeBack = () => {
    if (connection.open) connection.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('message', (message: { id: number; result: CheckpointResult }) => {
    asked.get(message.id)?.resolve(message.result);
    asked.delete(message.id);
  });
  worker.on('error', (error) => {
    failed = error;
    takeBack();
    for (const waiting of asked.values()) waiting.reject(error);
    asked.clear();
    options.onError?.(error);
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      takeBack();
      resolve();
    }),
  );
  return {
    checkpointNow() {
      if (failed) return Promise.reject(failed as Error);
      const id = next++;
      return new Promise((resolve, reject) => {
        asked.set(id, { resolve, reject });
        worker.postMessage({ type: 'now', id });
      });
    },
    async close() {
      // Held again while it finishes: an unref'd worker is no reason to stay alive, so a process with nothing else
      // to do (a start that failed) would exit mid-close, before it reported why.
      worker.ref();
      if (!failed) worker.postMessage({ type: 'close' });
      await exited;
    },
  };
}
