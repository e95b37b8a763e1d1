/**
 * The insights reads use indexes on SQLite and PostgreSQL: a 90-day window of a three-year history is searched on the
 * requests' time index (never a scan of the table), each decided row's deliveries are found through its own events
 * (from the deliveries' own index, never by walking every delivery recorded), and the days come from the status index. The history is the bench's
 * seed (`bench/seed.ts`, 4,000 rows over 1,095 days) with a delivered card per request as the web inbox writes it;
 * PostgreSQL gets a copy, `ANALYZE`d so its planner sees real statistics. The real gateway answers
 * `GET /v1/insights`, and every statement it ran is explained (on SQLite, where they run on a worker thread, the
 * statements `insightsReads` builds). The plan is asserted, not the time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedHistory } from '../../../bench/seed.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { openDatabase } from '../../../src/stores/sqlite/database.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { insightsReads } from '../../../src/stores/sqlite/insights.js';
import type { InsightsDimension } from '../../../src/insights/types.js';
import { startTestServer } from '../../helpers/server.js';
import { SqlRecorder, type RecordedSql } from '../history/sql-recorder.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

const DIRECTORY = `people:
  - { id: p1, accounts: { slack: U1 } }
  - { id: p2, accounts: { slack: U2 } }
groups:
  leads: [p1, p2]
`;
const DIMENSIONS = ['tool', 'agent', 'agent_kind', 'repo', 'person', 'group', 'channel'];

/** Asks the real gateway on `db` for a 90-day window by each dimension; `during` wraps each call. */
async function answerEach(db: string, during = <T>(_label: string, fn: () => Promise<T>) => fn()): Promise<void> {
  const t = await startTestServer({ dbPath: db, policy: DIRECTORY });
  try {
    const since = new Date(Date.now() - 90 * 86_400_000).toISOString();
    for (const by of DIMENSIONS) {
      await during(`insights ?by=${by}`, async () => {
        const res = await t.api(`/v1/insights?by=${by}&since=${since}`);
        expect(res.status, await res.clone().text()).toBe(200);
        expect(((await res.json()) as { totals: { requests: number } }).totals.requests).toBeGreaterThan(200);
      });
    }
  } finally {
    await t.close();
  }
}

/** Every statement the gateway ran on the history tables while answering a 90-day window by each dimension. */
async function insightsStatements(db: string): Promise<RecordedSql[]> {
  const recorder = new SqlRecorder();
  try {
    await answerEach(db, (label, fn) => recorder.during(label, fn));
  } finally {
    recorder.restore();
  }
  // The insights' own statements (the gateway's background reads that ran meanwhile are the other plan test's).
  const statements = recorder.historyStatements().filter((s) => /GROUP BY (key|day)\b/.test(s.text));
  // Every dimension read live rows (the window's partial days and today; whole days come from the rollup): a read
  // answered from elsewhere would check nothing.
  expect(new Set(statements.map((s) => s.label))).toEqual(new Set(DIMENSIONS.map((by) => `insights ?by=${by}`)));
  expect(statements.length).toBeGreaterThanOrEqual(DIMENSIONS.length);
  return statements;
}

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-insights-plans-'));
  file = join(dir, 'history.db');
  seedHistory(file, { rows: 4000, days: 1095 });
  // The web inbox's card is delivered as the request is filed (the chain's trigger hashes each event).
  const open = openDatabase(file);
  open.sqlite.exec(
    "INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) SELECT id, 'delivered', NULL, 'web', '{}', created_at FROM confirmation_requests ORDER BY created_at",
  );
  open.close();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('query plans of the insights reads', () => {
  it("on SQLite, the window is searched on an index and each row's deliveries on its own events", async () => {
    // The exact statements `insightsReads` builds (the rollup's oracle, and what its refresh's grouped read is made
    // of), explained with the parameters of a 90-day window. The answers themselves come from the rollup now.
    await answerEach(file);
    const db = new Database(file, { readonly: true });
    try {
      const since = new Date(Date.now() - 90 * 86_400_000);
      const statements = DIMENSIONS.flatMap((by) =>
        insightsReads({
          since,
          until: new Date(),
          by: by as InsightsDimension,
          limit: 100,
          groups: [
            ['p1', 'leads'],
            ['p2', 'leads'],
          ],
        }).map((read) => ({ label: by, ...read })),
      );
      for (const statement of statements) {
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(statement.params) as { detail: string }[]
        ).map((r) => r.detail);
        const text = `${statement.label}: ${plan.join(' | ')}`;
        expect(
          plan.filter((d) => /^SCAN (confirmation_requests|confirmation_events|r|e)\b/.test(d)),
          text,
        ).toEqual([]);
        if (/^SELECT key/.test(statement.sql)) {
          expect(
            plan.some((d) =>
              /^SEARCH r USING INDEX confirmation_requests_(created|person) \(.*created_at>\? AND created_at<\?\)/.test(
                d,
              ),
            ),
            text,
          ).toBe(true);
          expect(
            plan
              .filter((d) => /^SEARCH e /.test(d))
              .every((d) => d.includes('USING COVERING INDEX confirmation_events_delivered (request_id=? AND at<?)')),
            text,
          ).toBe(true);
        } else {
          expect(
            plan.some((d) =>
              /^SEARCH confirmation_requests USING COVERING INDEX confirmation_requests_status_created \(status=\? AND created_at>\? AND created_at<\?\)/.test(
                d,
              ),
            ),
            text,
          ).toBe(true);
        }
      }
    } finally {
      db.close();
    }
  }, 60_000);

  describe('on PostgreSQL', () => {
    let fresh: FreshDatabase;
    beforeAll(async () => {
      fresh = await freshDatabase({ migrate: true });
      const source = openDatabase(file);
      const target = openPostgres(fresh.url, { poolSize: 1 });
      try {
        await copySqliteToPostgres(source, target);
      } finally {
        source.close();
        await target.close();
      }
      await withClient(fresh.url, (c) => c.query('ANALYZE'));
    }, 60_000);
    afterAll(() => fresh?.drop());

    it('no read is a sequential scan of a history table, and deliveries are read by request', async () => {
      const statements = await insightsStatements(fresh.url);
      interface PgNode {
        'Node Type': string;
        'Relation Name'?: string;
        'Index Name'?: string;
        Plans?: PgNode[];
      }
      await withClient(fresh.url, async (client) => {
        for (const statement of statements) {
          const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgNode }] }>({
            text: `EXPLAIN (FORMAT JSON) ${statement.text}`,
            values: statement.values,
          });
          const nodes: PgNode[] = [];
          const walk = (node: PgNode) => {
            nodes.push(node);
            node.Plans?.forEach(walk);
          };
          walk(rows[0]!['QUERY PLAN'][0].Plan);
          const text = `${statement.label}: ${nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`).join(' > ')}`;
          expect(
            nodes.filter(
              (n) => n['Node Type'] === 'Seq Scan' && /^confirmation_(requests|events)$/.test(n['Relation Name'] ?? ''),
            ),
            text,
          ).toEqual([]);
          expect(
            nodes.some((n) => /^confirmation_requests_/.test(n['Index Name'] ?? '')),
            text,
          ).toBe(true);
          if (process.env.SHOW_PLANS) console.log(text);
          const events = nodes.filter((n) => n['Relation Name'] === 'confirmation_events');
          expect(
            events.every((n) => n['Index Name'] === 'confirmation_events_delivered'),
            text,
          ).toBe(true);
        }
      });
    }, 60_000);
  });
});
