/**
 * On PostgreSQL the deadline is judged by the database's clock, not the voting replica's: a replica whose clock runs
 * behind cannot slip an approval past the deadline, and one whose clock runs ahead does not expire a request early.
 * Votes here carry times skewed by minutes, as such replicas would stamp them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { file, vote } from '../../contracts/store-fixtures.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

let database: FreshDatabase;
let store: PostgresConfirmationStore;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  store = new PostgresConfirmationStore(openPostgres(database.url, { poolSize: 2 }));
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
});

/** A request filed `ageS` seconds ago by the database's clock, with the fixtures' 300 s timeout. */
const filedAgo = (ageS: number, extra: Parameters<typeof file>[1] = {}) =>
  file(store, extra, new Date(Date.now() - ageS * 1000));
/** A vote stamped `skewS` seconds off the real time (a replica whose clock is wrong). */
const skewed = (actor: string, decision: 'approve' | 'deny', skewS: number) => ({
  ...vote(actor, decision),
  at: new Date(Date.now() + skewS * 1000),
});

describe('the deadline by the database’s clock', () => {
  it('refuses a vote from a replica whose clock is behind, once the database says the deadline passed', async () => {
    const request = await filedAgo(301);
    const result = await store.decide(request.id, skewed('slack:U1', 'approve', -120));
    expect(result).toMatchObject({ kind: 'expired', request: { status: 'expired', respondedBy: 'system' } });
    // The expiry is stamped with the database's time, not the replica's: never before the deadline.
    expect((result as { request: { respondedAt: Date } }).request.respondedAt.getTime()).toBeGreaterThanOrEqual(
      request.expiresAt.getTime(),
    );
  });

  it('refuses a quorum approval the same way', async () => {
    const request = await filedAgo(301, { requiredApprovals: 2 });
    expect(await store.decide(request.id, skewed('slack:U1', 'approve', -120))).toMatchObject({ kind: 'expired' });
  });

  it('accepts a vote from a replica whose clock is ahead, while the database says there is time', async () => {
    const request = await filedAgo(100);
    expect(await store.decide(request.id, skewed('slack:U1', 'deny', 600))).toMatchObject({
      kind: 'final',
      request: { status: 'denied' },
    });
  });

  it('expires due rows by the database’s clock, whatever time the scan was given', async () => {
    const due = await filedAgo(400);
    const notDue = await filedAgo(10);
    const expired = await store.expireDue(new Date(Date.now() + 3600_000), 100);
    expect(expired.map((r) => r.id)).toEqual([due.id]);
    expect((await store.get(notDue.id))?.status).toBe('pending');
  });
});
