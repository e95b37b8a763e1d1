/**
 * @module bench/micro/store
 * `tsx bench/micro/store.ts`: CPU per call of the SQLite store's hot paths, next to the same read through a statement
 * prepared once. Not part of `npm run bench`; it is the evidence behind the store's figures (see docs/performance-log.md, first round).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteConfirmationStore } from '../../src/stores/sqlite/store.js';
import { openDatabase, applyMigrations } from '../../src/stores/sqlite/database.js';
import { seedPending } from '../seed-pending.js';
import { eq, sql } from 'drizzle-orm';
import { confirmationRequests } from '../../src/stores/sqlite/schema.js';
import { rowToRequest } from '../../src/stores/sqlite/rows.js';

const path = join(mkdtempSync(join(tmpdir(), 'tollgate-micro-')), 'micro.db');
const { ids } = seedPending(path, 20000, 0);
const open = openDatabase(path);
applyMigrations(open);
const store = new SqliteConfirmationStore(open);
const cpu = (label: string, n: number, fn: (i: number) => unknown) => {
  // CPU time, not wall time: other processes on the machine barely move it.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  const c = process.cpuUsage(c0);
  console.log(
    `${label}: ${(((c.user + c.system) / 1000 / n) * 1000).toFixed(1)} µs CPU/op, ${(((performance.now() - t0) / n) * 1000).toFixed(1)} µs wall/op`,
  );
};
cpu('store.get (drizzle, prepared per call)', 5000, (i) => store.get(ids[i]!));
const prepared = open.db
  .select()
  .from(confirmationRequests)
  .where(eq(confirmationRequests.id, sql.placeholder('id')))
  .prepare();
cpu('drizzle .prepare() once, .get({id})', 5000, (i) => {
  const r = prepared.get({ id: ids[i]! });
  return r && rowToRequest(r);
});
const raw = open.sqlite.prepare('select * from confirmation_requests where id = ?');
cpu('better-sqlite3 prepared, raw row', 5000, (i) => raw.get(ids[i]!));
let k = 5000;
cpu('store.decide (approve)', 3000, () =>
  store.decide(ids[k++]!, {
    decision: 'approve',
    actor: 'web:x',
    via: 'web',
    reason: null,
    option: 'Approve',
    approvedArgs: null,
    at: new Date(),
  }),
);
cpu('store.finish (expire)', 3000, () =>
  store.finish(ids[k++]!, 'expired', { actor: 'system', channel: null, detail: {}, at: new Date() }),
);
cpu('store.messages', 3000, (i) => store.messages(ids[i]!));
