/**
 * The integrator's read of pending events on PostgreSQL (`PENDING` after `PENDING_SCAN`, in the batch's transaction):
 * events leave the partial pending index by an UPDATE, so until a vacuum the index keeps an entry for each event placed
 * since. The read must be a plain index scan, which marks the dead entries it meets so the next batch skips them; a
 * bitmap scan (the planner's choice on a table it has no statistics for) reads every one of their heap pages on every
 * batch. 20,000 events are copied from a filed request's and all but the newest 200 are given a place by hand, as
 * batches would have, with no vacuum or ANALYZE since.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING, PENDING_SCAN } from '../../../src/stores/postgres/audit-integration.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { newRequest } from '../../contracts/store-fixtures.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

interface PgNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  Plans?: PgNode[];
}

let database: FreshDatabase;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  const store = new PostgresConfirmationStore(openPostgres(database.url, { poolSize: 1 }), { deadlineClock: 'caller' });
  await store.create(newRequest({ timeoutS: 600 }), []).finally(() => store.close());
  await withClient(database.url, async (client) => {
    const columns = (
      await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'confirmation_events'
           AND is_identity = 'NO' AND is_generated = 'NEVER' AND column_name NOT IN ('seq', 'prev_hash', 'hash')`,
      )
    ).rows.map((r) => `"${r.name}"`);
    await client.query(
      `INSERT INTO confirmation_events (${columns.join(', ')})
       SELECT ${columns.join(', ')} FROM confirmation_events, generate_series(1, 20000) g`,
    );
    await client.query(
      `UPDATE confirmation_events SET seq = id WHERE id <= (SELECT max(id) - 200 FROM confirmation_events)`,
    );
  });
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

/** Every node under `node`, itself included. */
const nodes = (node: PgNode): PgNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe('PostgreSQL read of the pending events', () => {
  // Whether the scan's marks take (and the next batch reads fewer pages) depends on the oldest snapshot in the whole
  // cluster, which other test files' connections hold back in a full run: only the plan is ours to assert.
  it('is a plain index scan, whatever the planner knows of the table, so it can mark dead entries for the next batch', async () => {
    const runs = await withClient(database.url, async (client) => {
      const plans: PgNode[] = [];
      for (let batch = 0; batch < 2; batch++) {
        await client.query('BEGIN');
        await client.query(PENDING_SCAN);
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgNode }] }>({
          text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${PENDING}`,
          values: [Number.MAX_SAFE_INTEGER, 1000],
        });
        await client.query('COMMIT');
        plans.push(rows[0]!['QUERY PLAN'][0].Plan);
      }
      return plans;
    });
    for (const plan of runs) {
      const kinds = nodes(plan).map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`.trim());
      expect(kinds.filter((k) => k.includes('Bitmap'))).toEqual([]);
      expect(nodes(plan).find((n) => n['Node Type'] === 'Index Scan')?.['Actual Rows']).toBe(200);
    }
  });
});
