/**
 * @module bench/history
 * Costs that must stay flat as history grows (issue 35): seeds `--history-rows` requests (default 10 million) with
 * batched inserts, then measures on that file the audit query's hot reads (`history.query_ms.p99`: the list API's
 * filters, first page and a deep cursor page, and the inbox's pending list, through the store) and the export
 * (`history.export_rows_per_s`, `history.export_rss_growth_mb`, NDJSON into a sink that drops it).
 *
 * ```sh
 * npx tsx bench/history.ts --history-rows 20000          # a quick check of the harness
 * npx tsx bench/history.ts --db /tmp/history.db --keep    # 10 million rows (long: seeding alone takes a while)
 * ```
 * Not yet: `history.create_rps` and `history.decision_to_resume_ms.p99` (a gateway started on the seeded file, as
 * `npm run bench` runs its scenarios) — not wired into `bench/run.ts`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { seedHistory } from './seed.js';
import { round, summarize } from './stats.js';
import { writeExport } from '../src/http/export.js';
import { openStores } from '../src/requests/open-store.js';
import type { RequestQuery } from '../src/requests/store.js';

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? undefined : argv[i + 1];
};
const rows = Number(arg('history-rows') ?? 10_000_000);
const exportRows = Number(arg('export-rows') ?? Math.min(rows, 1_000_000));
const dir = mkdtempSync(join(tmpdir(), 'tollgate-history-'));
const db = arg('db') ?? join(dir, 'history.db');

const seed = existsSync(db) ? null : seedHistory(db, { rows });
const stores = await openStores(db, { migrate: false });
const { store } = stores;
try {
  const month = (n: number) => new Date(Date.now() - n * 30 * 86_400_000);
  const queries: [string, RequestQuery][] = [
    ['none', {}],
    ['status=pending', { status: 'pending' }],
    ['status=approved', { status: 'approved' }],
    ['status=denied&tool', { status: 'denied', toolName: 'tool.3' }],
    ['tool', { toolName: 'tool.7' }],
    ['agent', { agentId: 'agent-4' }],
    ['approver', { respondedBy: 'slack:U5' }],
    ['person', { respondedByPeople: ['p1'] }],
    ['group', { respondedByPeople: ['p1', 'p2'] }],
    ['since&until', { since: month(6), until: month(5) }],
  ];
  const times: number[] = [];
  const perQuery: Record<string, number> = {};
  for (const [name, query] of queries) {
    const own: number[] = [];
    for (let rep = 0; rep < 20; rep++) {
      let cursor: string | undefined;
      // The first page, then 10 pages deep (a deep cursor).
      for (let page = 0; page < 10; page++) {
        const started = performance.now();
        const result = await store.list({ ...query, limit: 50, cursor });
        own.push(performance.now() - started);
        cursor = result.nextCursor ?? undefined;
        if (!cursor) break;
      }
    }
    times.push(...own);
    perQuery[name] = round(summarize(own).p99);
  }

  let written = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const byte of chunk) if (byte === 10) written++;
      done();
    },
  });
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  async function* limited() {
    let n = 0;
    for await (const r of store.scan({})) {
      if (n++ >= exportRows) return;
      yield r;
    }
  }
  await writeExport(sink, limited(), 'ndjson', { receiptsOf: (ids) => store.receiptsOf(ids) });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);

  const result = {
    rows,
    seed_s: seed ? round(seed.seconds) : null,
    'history.query_ms.p50': round(summarize(times).p50),
    'history.query_ms.p99': round(summarize(times).p99),
    'history.query_ms.p99_by_filter': perQuery,
    'history.export_rows': written,
    'history.export_rows_per_s': Math.round(written / seconds),
    // In this process, after seeding (whose heap the export may reuse): the tests measure a fresh process instead.
    'history.export_rss_growth_mb': round((rssPeak - rssBefore) / 1024 / 1024),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await stores.close();
  if (!argv.includes('--keep') && !arg('db')) rmSync(dir, { recursive: true, force: true });
}
