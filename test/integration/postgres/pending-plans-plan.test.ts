/**
 * The start-up walk of pending rows (`SQL_TEXT.pendingPlans`, `ExpiryHorizon.rearm`: every replica runs it when it
 * starts) on PostgreSQL, before autovacuum has analyzed a table filled in a burst: the follow-up flag of each pending
 * row is read from its own events (`confirmation_events_request`), never from every created event
 * (`confirmation_events_type`), which made a page of 1,000 rows read 50,000 index entries a row. 20,000 pending
 * requests, each with its created event, are copied from filed ones and left unanalyzed, as a new replica finds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { SQL_TEXT } from '../../../src/stores/postgres/statements.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { newRequest } from '../../contracts/store-fixtures.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

interface PgNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PgNode[];
}

let database: FreshDatabase;
let store: PostgresConfirmationStore;
const plan = {
  policy: { rule: 'payments', follow_ups: [{ kind: 'remind', step: 0, at: '2026-12-02T00:01:00.000Z' }] },
};

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  store = new PostgresConfirmationStore(openPostgres(database.url, { poolSize: 2 }), { deadlineClock: 'caller' });
  await store.create(newRequest({ timeoutS: 600 }), [], { detail: plan });
  await store.create(newRequest({ timeoutS: 600 }), []);
  // 10,000 copies of each filed request, with their created events (the copies keep the original's expiry order).
  await withClient(database.url, async (client) => {
    const columns = async (table: string) =>
      (
        await client.query<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND is_generated = 'NEVER'
             AND (column_default IS NULL OR column_default NOT LIKE 'nextval%') AND is_identity = 'NO'`,
          [table],
        )
      ).rows.map((r) => r.name);
    const copy = (cols: string[], varied: Record<string, string>) => cols.map((c) => varied[c] ?? `"${c}"`).join(', ');
    const requestColumns = await columns('confirmation_requests');
    await client.query(
      `INSERT INTO confirmation_requests (${requestColumns.map((c) => `"${c}"`).join(', ')})
       SELECT ${copy(requestColumns, { id: "id || '-' || g", idempotency_key: 'NULL', nonce: "nonce || '-' || g", expires_at: "expires_at + g * interval '1 ms'" })}
       FROM confirmation_requests, generate_series(1, 10000) g`,
    );
    const eventColumns = (await columns('confirmation_events')).filter(
      (c) => !['seq', 'prev_hash', 'hash'].includes(c),
    );
    await client.query(
      `INSERT INTO confirmation_events (${eventColumns.map((c) => `"${c}"`).join(', ')})
       SELECT ${copy(eventColumns, { request_id: "request_id || '-' || g", receipt_id: 'NULL', leaf: 'NULL' })}
       FROM confirmation_events, generate_series(1, 10000) g WHERE type = 'created'`,
    );
  });
}, 120_000);

afterAll(async () => {
  await store?.close();
  await database?.drop();
});

/** Every node under `node`, itself included. */
const nodes = (node: PgNode): PgNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe('PostgreSQL plan of the start-up walk of pending rows', () => {
  it('reads each row’s follow-up flag from its own events, not from every created event, before any ANALYZE', async () => {
    const root = await withClient(database.url, async (client) => {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgNode }] }>({
        text: `EXPLAIN (FORMAT JSON) ${SQL_TEXT.pendingPlans}`,
        values: [null, '', 1000],
      });
      return rows[0]!['QUERY PLAN'][0].Plan;
    });
    const events = nodes(root).filter((n) => n['Relation Name'] === 'confirmation_events');
    expect(
      events.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`),
      JSON.stringify(root),
    ).toEqual(['Index Scan confirmation_events_request']);
    expect(nodes(root).map((n) => n['Index Name'])).not.toContain('confirmation_events_type');
  });

  it('still marks exactly the rows whose created event records a plan', async () => {
    const page = await store.pendingPlans(20_002);
    expect(page).toHaveLength(20_002);
    expect(page.filter((r) => r.planned)).toHaveLength(10_001);
  });
});
