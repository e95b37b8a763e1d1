/**
 * The hook routes' same-call lookup (`SQL_TEXT.sameCall`, on every hook call) on PostgreSQL: the agent and tool's
 * newest rows come from `confirmation_requests_same_call` in order, without sorting the agent's or the tool's rows to
 * cut the window, and the candidates are read by primary key. The SQLite side is `core/sqlite-query-plans.test.ts`.
 * 20,000 rows over two agents and five tools (a runtime's agent files thousands per tool) are copied from one filed
 * row and `VACUUM ANALYZE`d, so the planner sees statistics, not an empty table.
 */
import { getTableColumns } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { confirmationRequests } from '../../../src/stores/postgres/schema.js';
import { SQL_TEXT } from '../../../src/stores/postgres/statements.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { file } from '../../contracts/store-fixtures.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

interface PgNode {
  'Node Type': string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Plans?: PgNode[];
}

let database: FreshDatabase;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  const store = new PostgresConfirmationStore(openPostgres(database.url, { poolSize: 1 }), { deadlineClock: 'caller' });
  try {
    await file(store, {
      agentId: 'claude-code',
      toolName: 'Read',
      sessionId: 's1',
      toolArgs: { path: '/srv/app/README.md' },
    });
  } finally {
    await store.close();
  }
  // 20,000 copies of that row over 2 agents and 5 tools, a second apart (one row per id; no idempotency keys).
  const varied: Record<string, string> = {
    id: 'gen_random_uuid()::text',
    agent_id: "'agent-' || (g % 2)",
    tool_name: "'tool-' || (g % 5)",
    session_id: "'session-' || (g % 50)",
    args_sha256: 'md5(g::text) || md5(g::text)',
    idempotency_key: 'NULL',
    created_at: "created_at + g * interval '1 second'",
  };
  const columns = Object.values(getTableColumns(confirmationRequests)).map((c) => c.name);
  await withClient(database.url, async (client) => {
    await client.query(
      `INSERT INTO confirmation_requests (${columns.map((c) => `"${c}"`).join(', ')})
       SELECT ${columns.map((c) => varied[c] ?? `"${c}"`).join(', ')} FROM confirmation_requests, generate_series(1, 20000) g`,
    );
    // VACUUM as autovacuum would: with the visibility map set the window is an index-only scan.
    await client.query('VACUUM ANALYZE confirmation_requests');
  });
});

afterAll(async () => {
  await database?.drop();
});

/** The plan of `sameCall` for the given `alsoApprovedArgs` and `anySession` (a coding agent's call, by workspace). */
const plan = (also: boolean, anySession = false) =>
  withClient(database.url, async (client) => {
    const values = ['agent-1', 'tool-3', 'session-3', 'a'.repeat(64), 50, also, anySession];
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgNode }] }>({
      text: `EXPLAIN (FORMAT JSON) ${SQL_TEXT.sameCall}`,
      values,
    });
    return rows[0]!['QUERY PLAN'][0].Plan;
  });

/** Every node under `node`, itself included. */
const nodes = (node: PgNode): PgNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe('PostgreSQL plan of the same-call lookup', () => {
  it.each([
    [false, false],
    [true, false],
    [false, true],
  ])(
    'alsoApprovedArgs=%s, any session=%s: the window is read from the same-call index in order, not sorted',
    async (also, anySession) => {
      const root = await plan(also, anySession);
      const cte = nodes(root).find((n) => n['Subplan Name'] === 'CTE w');
      expect(cte, JSON.stringify(root)).toBeDefined();
      const window = nodes(cte!);
      expect(window.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`)).toContain(
        'Index Only Scan confirmation_requests_same_call',
      );
      // A Sort here sorted every row of the agent (or the tool) to cut 50 of them.
      expect(window.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(
        nodes(root).filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'confirmation_requests'),
      ).toEqual([]);
    },
  );
});
