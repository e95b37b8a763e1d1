/**
 * The history's hot reads use indexes, on SQLite and PostgreSQL: a missing index fails here, not in production after
 * a year of rows (issue 35). A few thousand rows of history are seeded (`bench/seed.ts`; copied into PostgreSQL, then
 * `ANALYZE`d so its planner sees real statistics), the real gateway and the real `tollgate audit` run the list API's
 * filters (first page and a cursor page), the inbox's pending list, the export and the CLI's filters, and every
 * statement they ran on `confirmation_requests` / `confirmation_events` is explained (`EXPLAIN QUERY PLAN`,
 * `EXPLAIN (FORMAT JSON)`). The plan is asserted, not the time: no full scan of either table, and no sort of every
 * matching row before a page is cut.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedHistory } from '../../../bench/seed.js';
import { run as audit } from '../../../src/cli/audit.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { openDatabase } from '../../../src/stores/sqlite/database.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';
import { SqlRecorder, type RecordedSql } from './sql-recorder.js';

const ROWS = 4000;
const DIRECTORY = `people:
  - { id: p1, accounts: { slack: U1 } }
  - { id: p2, accounts: { slack: U2 } }
groups:
  leads: [p1, p2]
`;

/** A plan's findings: what would read every row of a history table, or sort every matching row. */
type PlanCheck = (statement: RecordedSql) => Promise<{ plan: string; problems: string[] }>;

const HISTORY_SCAN = /^SCAN (confirmation_requests|confirmation_events|confirmation_voters|r|e)\b/;
/**
 * Reads that may walk a whole index in order: the unfiltered list's first page reads `confirmation_requests_created`
 * newest first and stops at the page. Every other read names a filter or a cursor, and must search an index for it (a
 * walk of another index in order, filtering as it goes, is a full scan when the filter matches little; a cursor page
 * that walks from the newest row down to the cursor makes an export of a million rows read ~10^9 index entries).
 */
const ORDERED_WALKS = new Set(['list, no filter (first page)']);
/**
 * Reads that must search one index for both their filters: searching the status's index and filtering on the tool
 * reads every row of that status when the pair is rare or absent (seconds on a seeded history, and no scan to see).
 */
const PAIRED: [RegExp, string][] = [
  [/^list \?status=denied&tool_name/, 'confirmation_requests_tool_status'],
  // A status alone searches its own index (PostgreSQL: the status's partial one, `..._status_created_approved`): the
  // planner used to walk confirmation_requests_created newest first and filter, reading every newer row of any status.
  [/^list \?status=approved \(/, 'confirmation_requests_status_created'],
];
/**
 * SQLite, which has no statistics: a page's execution receipts are read from the receipts' own partial index, by
 * request id (its statements name the index). Searching the events' type index instead reads every receipt ever
 * written for each page of an export, and the request index every event of every row. PostgreSQL chooses by its
 * statistics: with no receipts (as here) the type index costs it nothing either.
 */
const RECEIPTS = { text: /type IN \('executed'/, index: 'confirmation_events_receipts' };

const sqlitePlan =
  (file: string): PlanCheck =>
  async (statement) => {
    const db = new Database(file, { readonly: true });
    try {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${statement.text}`).all(...statement.values) as { detail: string }[];
      const details = rows.map((r) => r.detail);
      const problems = details.filter(
        (d) =>
          (HISTORY_SCAN.test(d) && (!d.includes(' USING ') || !ORDERED_WALKS.has(statement.label))) ||
          d === 'USE TEMP B-TREE FOR ORDER BY',
      );
      if (RECEIPTS.text.test(statement.text) && !details.some((d) => d.includes(RECEIPTS.index)))
        problems.push(`receipts not read by ${RECEIPTS.index}`);
      return { plan: details.join(' | '), problems };
    } finally {
      db.close();
    }
  };

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

const postgresPlan =
  (url: string): PlanCheck =>
  (statement) =>
    withClient(url, async (client) => {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgNode }] }>({
        text: `EXPLAIN (FORMAT JSON) ${statement.text}`,
        values: statement.values,
      });
      const nodes: string[] = [];
      const problems: string[] = [];
      const walk = (node: PgNode) => {
        nodes.push(
          `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`,
        );
        if (
          node['Node Type'] === 'Seq Scan' &&
          /^confirmation_(requests|events|voters)$/.test(node['Relation Name'] ?? '')
        )
          problems.push(`Seq Scan on ${node['Relation Name']}`);
        // A person's votes are cut into pages in the voters' key order: a sort would order all of them first.
        if (node['Node Type'] === 'Sort' && /confirmation_voters/.test(statement.text))
          problems.push("Sort of a person's votes");
        node.Plans?.forEach(walk);
      };
      walk(rows[0]!['QUERY PLAN'][0].Plan);
      return { plan: nodes.join(' > '), problems };
    });

/** The reads issue 35 names, through the real HTTP API and the real CLI. */
async function runHotReads(t: TestServer, db: string, recorder: SqlRecorder): Promise<void> {
  const list = async (label: string, query: string) => {
    const first = await recorder.during(`${label} (first page)`, async () => {
      const res = await t.api(`/v1/requests?limit=20&${query}`);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as { items: unknown[]; next_cursor: string | null };
    });
    if (first.next_cursor) {
      await recorder.during(`${label} (cursor page)`, async () => {
        const res = await t.api(`/v1/requests?limit=20&${query}&cursor=${first.next_cursor}`);
        expect(res.status).toBe(200);
      });
    }
  };
  const month = (n: number) => new Date(Date.now() - n * 30 * 86_400_000).toISOString();
  await list('list, no filter', '');
  await list('list ?status=pending', 'status=pending');
  await list('list ?status=approved', 'status=approved');
  await list('list ?status=denied&tool_name', 'status=denied&tool_name=tool.3');
  await list('list ?tool_name', 'tool_name=tool.7');
  await list('list ?agent_id', 'agent_id=agent-4');
  await list('list ?responded_by', 'responded_by=slack:U5');
  await list('list ?person', 'person=p1');
  await list('list ?group', 'group=leads');
  await list('list ?since&until', `since=${month(6)}&until=${month(5)}`);
  await list('list ?tool_name&since&until', `tool_name=tool.9&since=${month(6)}&until=${month(2)}`);
  await recorder.during('inbox: waiting for web:alice', async () => {
    const res = await t.api('/v1/inbox?as=web:alice&limit=50');
    expect(res.status).toBe(200);
  });
  for (const format of ['ndjson', 'csv']) {
    await recorder.during(`export ${format}`, async () => {
      const res = await t.api(`/v1/requests/export?format=${format}&tool_name=tool.11`);
      expect(res.status).toBe(200);
      await res.text();
    });
  }
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    for (const flags of [
      ['--tool', 'tool.5'],
      ['--approver', 'slack:U3'],
      ['--person', 'p2'],
      ['--since', month(3), '--until', month(2)],
      ['--status', 'expired', '--format', 'csv'],
    ]) {
      await recorder.during(`tollgate audit ${flags.join(' ')}`, async () =>
        expect(await audit(['--db', db, ...flags])).toBe(0),
      );
    }
  } finally {
    out.mockRestore();
  }
}

async function checkPlans(recorder: SqlRecorder, explain: PlanCheck): Promise<void> {
  const statements = recorder.historyStatements();
  const labels = new Set(statements.map((s) => s.label));
  // Every hot read ran SQL on the history tables (a read answered from elsewhere would check nothing).
  for (const label of [
    'list ?tool_name (cursor page)',
    'list ?group (first page)',
    'inbox: waiting for web:alice',
    'export ndjson',
    'tollgate audit --tool tool.5',
  ])
    expect(labels).toContain(label);
  // `?person=` read the requests the person voted on, through the voters' table.
  expect(statements.some((s) => s.label === 'list ?person (cursor page)' && /confirmation_voters/.test(s.text))).toBe(
    true,
  );
  const failures: string[] = [];
  for (const statement of statements) {
    const { plan, problems } = await explain(statement);
    if (process.env.SHOW_PLANS)
      console.log(`${statement.label}\n  ${statement.text.slice(0, 160).replace(/\s+/g, ' ')}\n  → ${plan}`);
    // (The requests' read, not the read of their events that follows it under the same label.)
    for (const [label, index] of PAIRED)
      if (
        label.test(statement.label) &&
        /from "?confirmation_requests"?/i.test(statement.text) &&
        !plan.includes(index)
      )
        problems.push(`does not search ${index}`);
    if (problems.length)
      failures.push(
        `${statement.label}: ${problems.join(', ')}\n  ${statement.text.replace(/\s+/g, ' ')}\n  plan: ${plan}`,
      );
  }
  expect(failures, failures.join('\n\n')).toEqual([]);
}

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-plans-'));
  file = join(dir, 'history.db');
  seedHistory(file, { rows: ROWS });
  // Votes towards quorums, as `decide` records them (the seed settles every request with one approval): a share of
  // the rows each for 40 people, p1 and p2 among them, so `?person=` and `?group=` read the voters' table too.
  const db = new Database(file);
  try {
    db.prepare(
      "INSERT INTO confirmation_voters (person, request_created_at, request_id) SELECT 'p' || (1 + abs(random()) % 40), created_at, id FROM confirmation_requests",
    ).run();
  } finally {
    db.close();
  }
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('query plans of the history reads', () => {
  it('on SQLite, no read scans a history table or sorts every matching row', async () => {
    const recorder = new SqlRecorder();
    const t = await startTestServer({ dbPath: file, policy: DIRECTORY });
    try {
      await runHotReads(t, file, recorder);
    } finally {
      recorder.restore();
      await t.close();
    }
    await checkPlans(recorder, sqlitePlan(file));
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
      await withClient(fresh.url, (c: pg.Client) => c.query('ANALYZE'));
    }, 60_000);
    afterAll(() => fresh?.drop());

    it('no read is a sequential scan of a history table', async () => {
      const recorder = new SqlRecorder();
      const t = await startTestServer({ dbPath: fresh.url, policy: DIRECTORY });
      try {
        await runHotReads(t, fresh.url, recorder);
      } finally {
        recorder.restore();
        await t.close();
      }
      await checkPlans(recorder, postgresPlan(fresh.url));
    }, 60_000);
  });
});
