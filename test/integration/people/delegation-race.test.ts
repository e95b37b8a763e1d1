/**
 * Two replicas cannot close a delegation cycle together (issue 58, finding 8): alice → bob set through one and
 * bob → alice through the other at the same moment leave one window and one refusal naming the cycle. Each replica is
 * an `AwayBook` over its own connection to one database, on SQLite (one file) and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { AwayBook } from '../../../src/people/away-book.js';
import { MemoryDirectory } from '../../../src/people/memory-directory.js';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const directory = new MemoryDirectory(['alice', 'bob'].map((id) => ({ id, accounts: { web: id }, name: id }) as never));

describe.each(['sqlite', 'postgres'] as const)('the delegation cycle check across replicas (%s)', (dialect) => {
  it('of two racing windows that close a cycle, one is kept and the other refused naming the cycle', async () => {
    let db: string;
    if (dialect === 'postgres') {
      const database: FreshDatabase = await freshDatabase();
      cleanups.push(() => database.drop());
      db = database.url;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'tollgate-away-race-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      db = join(dir, 'tollgate.db');
    }
    const open = async (): Promise<OpenStores> => {
      const stores = await openStores(db);
      cleanups.push(() => stores.close());
      return stores;
    };
    const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
    const replica = async () => new AwayBook({ store: (await open()).away, directory: () => directory, clock });
    const [one, two] = [await replica(), await replica()];
    const window = (delegate: string) => ({
      from: new Date(clock.now()),
      until: new Date(clock.now() + 86_400_000),
      delegate,
      note: null,
    });
    const results = await Promise.allSettled([
      one.set('alice', window('bob'), 'admin'),
      two.set('bob', window('alice'), 'admin'),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ValidationError);
    expect(String(refused.reason)).toMatch(/cycle: (alice → bob → alice|bob → alice → bob)/);
    const kept = (await (await open()).away.latest()).filter((c) => c.away);
    expect(kept).toHaveLength(1);
  });
});
