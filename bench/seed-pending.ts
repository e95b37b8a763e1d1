/**
 * @module bench/seed-pending
 * Fills a SQLite file with pending requests fast: one better-sqlite3 transaction of prepared inserts, with column
 * names taken from the drizzle schema and rows built by the store's own row mapper, so they look exactly like rows
 * the gateway wrote (plus their `created` event and a sent web card).
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import { runTollgate } from './processes.js';
import { argsSha256 } from '../src/requests/args-hash.js';
import { applyMigrations, openDatabase } from '../src/stores/sqlite/database.js';
import { newConfirmationRequest, type GatewayDefaults } from '../src/requests/new-request.js';
import { requestToRow } from '../src/stores/sqlite/rows.js';
import { channelMessages, confirmationEvents, confirmationRequests } from '../src/stores/sqlite/schema.js';
import { markSeededLegacy } from './history-rows.js';

/** The gateway defaults seeded requests are built with. */
export const SEED_DEFAULTS: GatewayDefaults = {
  timeoutS: 300,
  channels: [{ type: 'web' }],
  options: ['Approve', 'Deny'],
  onTimeout: 'deny',
};

/** An INSERT for `table` with a named parameter per property (`@toolName` for `tool_name`). */
function insertSql(table: Table, name: string, skip: string[] = []): string {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => !skip.includes(key));
  return `INSERT INTO ${name} (${columns.map(([, c]) => `"${c.name}"`).join(', ')}) VALUES (${columns.map(([key]) => `@${key}`).join(', ')})`;
}

/** What {@link seedPending} wrote. */
export interface SeedResult {
  rows: number;
  overdue: number;
  /** Every overdue row expires at or before this instant. */
  overdueBefore: Date;
  seconds: number;
  /** The ids written, in order. */
  ids: string[];
}

/**
 * Writes `count` pending requests into `dbPath` (migrating it first); `overdue` of them expired up to 10 minutes
 * ago, the others expire 10 to 60 minutes from now.
 */
export function seedPending(dbPath: string, count: number, overdue: number): SeedResult {
  const started = performance.now();
  const open = openDatabase(dbPath);
  applyMigrations(open);
  const insertRequest = open.sqlite.prepare(insertSql(confirmationRequests, 'confirmation_requests'));
  const insertEvent = open.sqlite.prepare(
    insertSql(confirmationEvents, 'confirmation_events', ['id', 'prevHash', 'hash', 'seq', 'leaf', 'receiptId']),
  );
  const insertCard = open.sqlite.prepare(insertSql(channelMessages, 'channel_messages', ['id']));
  const now = Date.now();
  const overdueBefore = new Date(now);
  const ids: string[] = [];
  open.sqlite
    .transaction(() => {
      for (let i = 0; i < count; i++) {
        const createdAt = new Date(now - 15 * 60_000 + Math.floor((i / count) * 60_000));
        const expiresAt =
          i < overdue
            ? new Date(now - 1000 - ((i * 7919) % 600_000))
            : new Date(now + 600_000 + ((i * 7919) % 3_000_000));
        const toolArgs = { path: `/srv/data/${i}.csv`, rows: i % 1000 };
        const request = {
          ...newConfirmationRequest(
            {
              toolName: 'bench.export_table',
              toolArgs,
              prompt: 'Export a table to a file.',
              agentId: `agent-${i % 50}`,
              sessionId: `session-${i}`,
            },
            SEED_DEFAULTS,
            [{ type: 'web' }],
            argsSha256('bench.export_table', toolArgs),
            createdAt,
          ),
          expiresAt,
        };
        insertRequest.run(requestToRow(request));
        ids.push(request.id);
        insertEvent.run({
          requestId: request.id,
          type: 'created',
          actor: null,
          channel: null,
          detail: '{}',
          at: createdAt.toISOString(),
        });
        insertCard.run({
          requestId: request.id,
          channel: 'web',
          target: '',
          messageRef: null,
          status: 'sent',
          attempts: 1,
          lastError: null,
          updatedAt: createdAt.toISOString(),
        });
      }
    })
    .immediate();
  // Written around the stores, as an older tollgate would have: the database's legacy part (no receipts).
  markSeededLegacy(open.sqlite);
  open.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  open.close();
  return { rows: count, overdue, overdueBefore, seconds: (performance.now() - started) / 1000, ids };
}

/**
 * Seeds `<tmp>/<name>.db` with {@link seedPending}; in `postgres` mode then copies it into a fresh PostgreSQL
 * database with `tollgate migrate --from <file> --to <url>` (the documented way to move to PostgreSQL). Resolves
 * with what to pass as the gateway's `--db` and how long the copy took.
 */
export async function seedForMode(
  ctx: BenchContext,
  name: string,
  count: number,
  overdue: number,
): Promise<SeedResult & { db: string; copySeconds: number }> {
  const dbPath = join(ctx.tmp, `${name}.db`);
  const seed = seedPending(dbPath, count, overdue);
  if (!ctx.pg) return { ...seed, db: dbPath, copySeconds: 0 };
  const started = performance.now();
  const url = await ctx.pg.fresh(name);
  await runTollgate(['migrate', '--from', dbPath, '--to', url]);
  return { ...seed, db: url, copySeconds: (performance.now() - started) / 1000 };
}
