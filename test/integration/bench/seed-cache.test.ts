/**
 * `--history-seed-dir`: a history seeded once is kept (a SQLite file, a PostgreSQL template database) and the next run
 * gets a copy of it, with the seed's own time span, instead of seeding again; the copy is the run's to write to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchContext } from '../../../bench/context.js';
import { postgresForBench, type BenchPostgres } from '../../../bench/postgres.js';
import { keptHistorySeed, SEED_VERSION } from '../../../bench/seed-cache.js';
import { seedHistoryPostgres } from '../../../bench/seed-postgres.js';
import { seedHistory, type HistorySeed } from '../../../bench/seed.js';
import { openStores } from '../../../src/stores/open-store.js';
import { PG_ADMIN_URL, withClient } from '../postgres/fresh-database.js';

const ROWS = 1237;
const dir = mkdtempSync(join(tmpdir(), 'tollgate-seed-cache-'));
const template = `tollgate_seed_history_${ROWS}_v${SEED_VERSION}`;
let pg: BenchPostgres | null = null;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pg?.close();
  await withClient(PG_ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`));
});

function context(mode: BenchContext['mode'], bench: BenchPostgres | null): BenchContext {
  return {
    mode,
    tmp: dir,
    pg: bench,
    historySeedDir: join(dir, 'kept'),
    historyRows: ROWS,
    log: () => {},
  } as unknown as BenchContext;
}

async function requestCount(db: string): Promise<number> {
  const stores = await openStores(db, { migrate: false });
  try {
    return (
      (await stores.store.list({ limit: 500 })).items.length +
      (await stores.store.list({ status: 'pending', limit: 500 })).items.length
    );
  } finally {
    await stores.close();
  }
}

/** Two runs on `ctx`: the first seeds and keeps, the second copies; each writes to its own database. */
async function twoRuns(
  ctx: BenchContext,
  db: (run: number) => Promise<string>,
  seed: (db: string) => Promise<HistorySeed>,
) {
  let seeded = 0;
  const counted = (target: string) => () => {
    seeded++;
    return seed(target);
  };
  const firstDb = await db(1);
  const first = await keptHistorySeed(ctx, ctx.historySeedDir, firstDb, ROWS, counted(firstDb));
  const secondDb = await db(2);
  const second = await keptHistorySeed(ctx, ctx.historySeedDir, secondDb, ROWS, counted(secondDb));
  expect(seeded).toBe(1);
  expect(first.reused).toBe(false);
  expect(second).toMatchObject({
    reused: true,
    rows: ROWS,
    events: first.events,
    pending: first.pending,
    from: first.from,
    to: first.to,
  });
  // Both hold the history; the copy is a database of its own.
  expect(await requestCount(firstDb)).toBe(500 + 1);
  expect(await requestCount(secondDb)).toBe(500 + 1);
  return { firstDb, secondDb };
}

describe('kept history seeds', () => {
  it('SQLite: the second run copies the kept file', async () => {
    const ctx = context('sqlite', null);
    await twoRuns(
      ctx,
      async (run) => join(dir, `run${run}.db`),
      async (db) => seedHistory(db, { rows: ROWS }),
    );
  });

  it('PostgreSQL: the second run copies the kept template database', async () => {
    pg = await postgresForBench(() => {});
    const ctx = context('postgres', pg);
    await twoRuns(
      ctx,
      (run) => pg!.fresh(`seed_cache_${run}`),
      (db) => seedHistoryPostgres(db, { rows: ROWS }),
    );
    expect(await pg!.exists(template)).toBe(true);
  });
});
