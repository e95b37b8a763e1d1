/**
 * @module stores/sqlite/checkpointer
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that fills the WAL past 1,000
 * pages: that commit copies the pages into the database file and fsyncs it, on the gateway's only thread, so one
 * call in a few hundred waited ~10 ms for it (policy-allowed calls from one client: p99 15 ms, 4 ms without).
 * Here a worker thread with its own connection runs a PASSIVE checkpoint every second (it never blocks readers or
 * writers), and the gateway's connection stops checkpointing on its own. A passive checkpoint never starts the WAL
 * over while commits keep coming (a gateway under sustained writes grew its WAL to 253 MB in 66,000 creates), so past
 * `restartFrames` the worker RESTARTs it: the next commit writes from the WAL's start, the file keeps its size. Not a
 * TRUNCATE: shortening a 16–56 MB file held the write lock 27–72 ms here, a stall of every gateway write, where a
 * restart of frames already copied holds it 0.1 ms. Only an idle worker, on its way out, truncates the file.
 *
 * The worker is a second V8 isolate (about 15 MB of RSS), so it runs only while there is work for it: a timer on the
 * gateway's thread looks at the WAL file every interval (one stat) and starts the worker once commits have written
 * `startFrames` frames into it (SQLite's own threshold, 1,000 pages, by default: fewer frames cost nothing where
 * they are); the worker empties the WAL and exits after `idleChecks` intervals without a new frame. An idle gateway,
 * or one whose start wrote a few rows, carries no worker.
 *
 * Durability does not change: a commit is in the WAL before it returns either way; a checkpoint only moves committed
 * pages into the main file. Should the worker die, the connection goes back to checkpointing itself, so the WAL
 * cannot grow without bound.
 */
import { statSync } from 'node:fs';
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
  /** Whether the worker thread is up now (it starts at the WAL's first frame and exits once the WAL stays empty). */
  running(): boolean;
}

/** Options of {@link startCheckpointer}. */
export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 1000 ms). */
  everyMs?: number;
  /** WAL frames past which a checkpoint also starts the WAL over (default 4096: 16 MB of 4 KB pages). */
  restartFrames?: number;
  /** Intervals in a row without a new WAL frame after which the worker empties the WAL and exits (default 30). */
  idleChecks?: number;
  /** WAL frames at which the worker starts (default 1000, SQLite's own checkpoint threshold). */
  startFrames?: number;
  /** Told when the worker fails (the connection checkpoints on its own again). */
  onError?: (error: unknown) => void;
}

// The worker is plain CommonJS passed as a string: it runs the same way from the sources (tsx, vitest) and from dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
// No busy handler: a RESTART or TRUNCATE that waits holds the write lock while it waits for readers to leave the WAL,
// so a reader that stays (an export, another process's query) would stall every gateway write behind it, on the
// gateway's only thread, for as long as the wait. Without one, a checkpoint that cannot finish at once gives up and
// the next interval tries again; PASSIVE never waits anyway.
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  let [row] = db.pragma('wal_checkpoint(PASSIVE)');
  // Under writes that never pause, a passive checkpoint is always a few frames behind when the next commit comes, so
  // the WAL never starts over and grows for ever. Past the limit, a RESTART finishes the last frames and, when no
  // reader is in the WAL, makes the next commit write from its start; the frames were just copied, so it holds the
  // gateway's writes only a moment, once per limit's worth of commits.
  if (row.log >= workerData.restartFrames) [row] = db.pragma('wal_checkpoint(RESTART)');
  return { log: row.log, checkpointed: row.checkpointed };
};
// Idle: no frame written since the last interval and every frame copied. After idleChecks such intervals in a row,
// the WAL is emptied and the worker leaves; the gateway starts a new one at the next commit.
let quiet = 0;
let lastLog = -1;
const tick = () => {
  const row = checkpoint();
  quiet = row.log === lastLog && row.checkpointed === row.log ? quiet + 1 : 0;
  lastLog = row.log;
  if (quiet < workerData.idleChecks) return;
  // A reader still in the WAL: stay, and empty it at a later interval.
  if (db.pragma('wal_checkpoint(TRUNCATE)')[0].busy) return;
  clearInterval(timer);
  db.close();
  parentPort.postMessage({ type: 'idle' });
  parentPort.close();
};
const timer = setInterval(tick, workerData.everyMs);
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
 * Checkpoints `connection`'s database file from a worker thread, started when the WAL has frames, and turns the
 * connection's own automatic checkpoints off.
 * @example const checkpointer = startCheckpointer(open.sqlite, path); …; await checkpointer.close(); open.close();
 */
export function startCheckpointer(
  connection: Database.Database,
  path: string,
  options: CheckpointerOptions = {},
): Checkpointer {
  const everyMs = options.everyMs ?? 1000;
  const workerData = {
    driver: SQLITE_DRIVER,
    path,
    everyMs,
    restartFrames: options.restartFrames ?? 4096,
    idleChecks: options.idleChecks ?? 30,
  };
  connection.pragma('wal_autocheckpoint = 0');
  const asked = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: unknown) => void }>();
  let next = 0;
  let failed: unknown = null;
  let closing = false;
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  // The WAL file as the last worker left it: a new one starts only once a commit has changed it.
  let leftAs: string | null = null;
  // The WAL only grows between the worker's truncations, so its size counts the frames since (a 32-byte header,
  // then a 24-byte header and a page per frame; the pages are SQLite's default 4 KB).
  const startBytes = 32 + (options.startFrames ?? 1000) * (24 + 4096);
  const walState = () => {
    const stat = statSync(`${path}-wal`, { throwIfNoEntry: false });
    return stat && stat.size > 0 ? { size: stat.size, key: `${stat.size}:${stat.mtimeMs}` } : null;
  };
  const takeBack = () => {
    if (connection.open) connection.pragma('wal_autocheckpoint = 1000');
  };
  const launch = (): Worker => {
    const started = new Worker(WORKER, { eval: true, workerData });
    // A checkpointer must never keep a process alive that has nothing else to do.
    started.unref();
    let idle = false;
    started.on('message', (message: { id: number; result: CheckpointResult } | { type: 'idle' }) => {
      if ('type' in message) {
        idle = true;
        return;
      }
      asked.get(message.id)?.resolve(message.result);
      asked.delete(message.id);
    });
    started.on('error', (error) => {
      failed = error;
      clearInterval(watch);
      takeBack();
      for (const waiting of asked.values()) waiting.reject(error);
      asked.clear();
      options.onError?.(error);
    });
    exited = new Promise<void>((resolve) =>
      started.once('exit', () => {
        worker = null;
        if (idle && !closing && !failed) {
          leftAs = walState()?.key ?? null;
          // Asked while it was leaving: a new worker answers.
          if (asked.size) ensureWorker();
        } else {
          clearInterval(watch);
          takeBack();
        }
        resolve();
      }),
    );
    return started;
  };
  const ensureWorker = () => {
    if (worker) return;
    const started = (worker = launch());
    for (const id of asked.keys()) started.postMessage({ type: 'now', id });
  };
  const watch = setInterval(() => {
    if (worker || failed || closing) return;
    const state = walState();
    if (state && state.size >= startBytes && state.key !== leftAs) ensureWorker();
  }, everyMs);
  watch.unref();
  return {
    checkpointNow() {
      if (failed) return Promise.reject(failed as Error);
      const id = next++;
      return new Promise((resolve, reject) => {
        asked.set(id, { resolve, reject });
        // A worker started now is sent every question still open, this one with them.
        if (worker) worker.postMessage({ type: 'now', id });
        else ensureWorker();
      });
    },
    async close() {
      closing = true;
      clearInterval(watch);
      const running = worker;
      if (!running) {
        takeBack();
        return;
      }
      // Held again while it finishes: an unref'd worker is no reason to stay alive, so a process with nothing else
      // to do (a start that failed) would exit mid-close, before it reported why.
      running.ref();
      if (!failed) running.postMessage({ type: 'close' });
      await exited;
    },
    running: () => worker !== null,
  };
}
