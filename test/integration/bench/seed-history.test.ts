/**
 * The bench's history seeders write what the gateway would have, the chain's hashes computed by the seeder (its
 * trigger off inside each batch's transaction only). Either way `audit verify` walks an
 * intact chain and every request agrees with its events, also after pending rows are added to a seeded history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedHistoryPostgres } from '../../../bench/seed-postgres.js';
import { historyRows, SeedIds } from '../../../bench/history-rows.js';
import { historyPlan, historyRow, seedHistory } from '../../../bench/seed.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { requestToRow } from '../../../src/stores/sqlite/rows.js';
import { witness } from '../audit/witnessed.js';
import { openStores } from '../../../src/stores/open-store.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-seed-history-'));
let pgDb: FreshDatabase | null = null;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pgDb?.drop();
});

/**
 * Opens `db` as a gateway does (a key, the stores witnessing, the integrator), appends one witnessed event after the
 * seeded history, and verifies: the seed is the database's legacy part, closed by the first checkpoint.
 */
async function appendAndVerify(db: string) {
  const stores = await openStores(db);
  try {
    const audit = await witness(stores);
    await audit.integrate();
    const [first] = (await stores.store.list({ status: 'pending', limit: 1 })).items;
    await stores.store.appendEvent(first!.id, {
      type: 'escalated',
      actor: null,
      channel: null,
      detail: { step: 1 },
      at: new Date(),
    });
    const report = await audit.verify();
    const pending = await stores.store.list({ status: 'pending', limit: 500 });
    const approved = await stores.store.list({ status: 'approved', limit: 5 });
    return { report, pending: pending.items.length, approved: approved.items };
  } finally {
    await stores.close();
  }
}

describe('history seeders', () => {
  it('SQLite builds the rows historyRow describes, column by column (but for the id and nonce)', () => {
    const ids = new SeedIds();
    for (const plan of [historyPlan({ rows: 5000 }), historyPlan({ rows: 300, pendingOnly: true })]) {
      for (const i of [0, 1, 2, 3, 4, 998, 999, 4999 % plan.rows]) {
        const { request, events } = historyRow(i, plan);
        const rows = historyRows(i, plan, ids);
        expect({ ...rows.request, id: '', nonce: '' }).toEqual({ ...requestToRow(request), id: '', nonce: '' });
        expect(rows.request.nonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
        expect(rows.events).toEqual(
          events.map((e) => [e.type, e.actor, e.channel, JSON.stringify(e.detail), e.at.toISOString()]),
        );
      }
    }
  });

  it('SQLite: a history plus pending rows, chain intact', async () => {
    const db = join(dir, 'history.db');
    const seed = seedHistory(db, { rows: 3000, batch: 700 });
    expect(seed).toMatchObject({ rows: 3000, pending: 3, events: 2 * 3000 - 3 });
    const more = seedHistory(db, { rows: 200, pendingOnly: true });
    expect(more).toMatchObject({ rows: 200, pending: 200, events: 200 });
    // The seed writes with its foreign keys unchecked: every event and card names a request.
    const file = new Database(db, { readonly: true });
    expect(file.pragma('foreign_key_check')).toEqual([]);
    file.close();
    const { report, pending, approved } = await appendAndVerify(db);
    expect(report).toMatchObject({ ok: true, events: 6198, requests: 3200, problem: null, legacy: { size: 6197 } });
    expect(pending).toBe(203);
    expect(approved[0]).toMatchObject({ status: 'approved', respondedVia: 'slack', decisionOption: 'Approve' });
  });

  it('PostgreSQL: the seeder places events as the integrator would, and the trail continues after it', async () => {
    pgDb = await freshDatabase();
    const seed = await seedHistoryPostgres(pgDb.url, { rows: 3000, batch: 700 });
    expect(seed).toMatchObject({ rows: 3000, pending: 3, events: 2 * 3000 - 3 });
    const more = await seedHistoryPostgres(pgDb.url, { rows: 200, pendingOnly: true });
    expect(more).toMatchObject({ rows: 200, pending: 200, events: 200 });
    const { report, pending, approved } = await appendAndVerify(pgDb.url);
    expect(report).toMatchObject({ ok: true, requests: 3200, problem: null, legacy: { size: 6197 } });
    expect(report.events).toBe(6198);
    expect(pending).toBe(203);
    expect(approved[0]).toMatchObject({ status: 'approved', respondedVia: 'slack', decisionOption: 'Approve' });
  });
});
