/**
 * WAL checkpoints run in a worker thread, not inside the commit that fills the WAL (which fsyncs the database file on
 * the gateway's only thread). Real SQLite files, a real worker.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../../src/stores/sqlite/database.js';
import { startCheckpointer, type Checkpointer } from '../../../src/stores/sqlite/checkpointer.js';
import { openStores } from '../../../src/stores/open-store.js';
import { eventually } from '../../helpers/eventually.js';

let dir: string;
let path: string;
let open: OpenDatabase;
let checkpointer: Checkpointer | null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
  path = join(dir, 'c.db');
  open = openDatabase(path);
  open.sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  checkpointer = null;
});
afterEach(async () => {
  await checkpointer?.close();
  open.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Commits `pages` pages' worth of rows, one transaction per ten rows. */
function write(pages: number) {
  const insert = open.sqlite.prepare('INSERT INTO blobs (body) VALUES (?)');
  for (let i = 0; i < pages; i += 10)
    open.sqlite.transaction(() => Array.from({ length: 10 }, () => insert.run('x'.repeat(3500))))();
}
const autocheckpoint = () => open.sqlite.pragma('wal_autocheckpoint', { simple: true });

describe('background WAL checkpoints', () => {
  it('takes checkpoints out of the commits and runs them in the worker', async () => {
    checkpointer = startCheckpointer(open.sqlite, path, { everyMs: 60_000 });
    expect(autocheckpoint()).toBe(0);
    const before = statSync(path).size;
    write(1500);
    // Past SQLite's 1,000-page threshold, and no commit moved a page into the database file.
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1000 * 4096);
    expect(statSync(path).size).toBe(before);
    const result = await checkpointer.checkpointNow();
    expect(result.log).toBeGreaterThan(1000);
    expect(result.checkpointed).toBe(result.log);
    expect(statSync(path).size).toBeGreaterThan(before + 1400 * 4096);
  });

  it('checkpoints on its own every interval', async () => {
    checkpointer = startCheckpointer(open.sqlite, path, { everyMs: 20, startFrames: 100 });
    const before = statSync(path).size;
    write(200);
    await eventually(() => expect(statSync(path).size).toBeGreaterThan(before + 190 * 4096));
  });

  it('starts the WAL over once it is past the limit, so sustained writes reuse it instead of growing it', async () => {
    checkpointer = startCheckpointer(open.sqlite, path, { everyMs: 60_000, restartFrames: 1000 });
    write(500);
    // Below the limit: a passive checkpoint copies the frames, and the next commits append after them.
    expect(await checkpointer.checkpointNow()).toMatchObject({ log: expect.any(Number) as number });
    write(100);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(580 * 4096);
    write(1400);
    // Past it: the frames are copied and the WAL restarted; the next commits write it from the start, in the same file.
    const past = await checkpointer.checkpointNow();
    expect(past.checkpointed).toBe(past.log);
    const size = statSync(`${path}-wal`).size;
    expect(size).toBeGreaterThan(1400 * 4096);
    write(1000);
    expect(statSync(`${path}-wal`).size).toBe(size);
    expect(open.sqlite.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(3000);
  });

  it("never holds the gateway's writes while a reader stays in the WAL: the restart waits for a later interval", async () => {
    checkpointer = startCheckpointer(open.sqlite, path, { everyMs: 60_000, restartFrames: 1000 });
    write(1500);
    // Another connection's read transaction pins the WAL (an export, `tollgate audit` from another process).
    const reader = openDatabase(path);
    reader.sqlite.exec('BEGIN');
    reader.sqlite.prepare('SELECT count(*) FROM blobs').pluck().get();
    try {
      // Writes wait at most 250 ms here: a truncation that waited for the reader under the write lock held them for
      // its whole busy timeout (1 s), refusing every one of these; one that gives up at once never does.
      open.sqlite.pragma('busy_timeout = 250');
      let answered = false;
      const asked = checkpointer.checkpointNow().finally(() => (answered = true));
      const refused: unknown[] = [];
      do {
        try {
          open.sqlite.prepare('INSERT INTO blobs (body) VALUES (?)').run('during');
        } catch (error) {
          refused.push(error);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      } while (!answered);
      expect(refused).toEqual([]);
      // The reader is still there: the WAL is not started over under it, so the next commits append.
      await asked;
      const size = statSync(`${path}-wal`).size;
      write(100);
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(size);
    } finally {
      reader.sqlite.exec('COMMIT');
      reader.close();
      open.sqlite.pragma('busy_timeout = 5000');
    }
    // Gone: the next checkpoint starts it over, and the next commits write from its start.
    await checkpointer.checkpointNow();
    const size = statSync(`${path}-wal`).size;
    write(100);
    expect(statSync(`${path}-wal`).size).toBe(size);
  });

  it('gives checkpointing back to the connection when closed, and when the worker fails', async () => {
    const stopped = startCheckpointer(open.sqlite, path, { everyMs: 60_000 });
    await stopped.close();
    expect(autocheckpoint()).toBe(1000);
    const errors: unknown[] = [];
    checkpointer = startCheckpointer(open.sqlite, join(dir, 'missing.db'), { onError: (e) => errors.push(e) });
    expect(autocheckpoint()).toBe(0);
    // Asking starts the worker, which cannot open the file.
    await expect(checkpointer.checkpointNow()).rejects.toThrow();
    await eventually(() => expect(errors).toHaveLength(1));
    expect(autocheckpoint()).toBe(1000);
    await expect(checkpointer.checkpointNow()).rejects.toThrow();
  });

  it('runs the worker only once the WAL holds startFrames frames, and lets it go once the WAL stays empty', async () => {
    checkpointer = startCheckpointer(open.sqlite, path, { everyMs: 20, idleChecks: 3, startFrames: 100 });
    // beforeEach's CREATE TABLE is a few frames: no worker for them (five intervals).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(checkpointer.running()).toBe(false);
    const before = statSync(path).size;
    write(200);
    await eventually(() => expect(checkpointer!.running()).toBe(true));
    await eventually(() => expect(statSync(path).size).toBeGreaterThan(before + 190 * 4096));
    // Quiet: the worker empties the WAL and leaves; the connection still leaves checkpoints to the next one.
    await eventually(() => expect(checkpointer!.running()).toBe(false));
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(autocheckpoint()).toBe(0);
    write(200);
    await eventually(() => expect(checkpointer!.running()).toBe(true));
    expect(await checkpointer.checkpointNow()).toMatchObject({ checkpointed: expect.any(Number) as number });
    expect(open.sqlite.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(400);
  });

  it('is on for serve, off for tools that open the database briefly', async () => {
    const served = await openStores(join(dir, 'served.db'), { backgroundCheckpoints: true });
    const tool = await openStores(join(dir, 'tool.db'));
    // The setting is per connection: read it on the store's own.
    const setting = (stores: typeof served) =>
      (stores.store as unknown as { open: OpenDatabase }).open.sqlite.pragma('wal_autocheckpoint', { simple: true });
    try {
      expect(setting(served)).toBe(0);
      expect(setting(tool)).toBe(1000);
    } finally {
      await served.close();
      await tool.close();
    }
  });
});
