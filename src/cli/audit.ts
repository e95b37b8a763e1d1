/**
 * @module cli/audit
 * `tollgate audit`: the audit query straight from the database (a SQLite file or a postgres:// URL), for an auditor.
 * The rows hold what agents wrote: the table is printed through `terminalText`, JSON through `terminalJson` (the same
 * data, its control characters escaped); CSV, which has no escapes, is stripped only when stdout is a terminal, so a
 * file gets the exact data.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import { listQuerySchema, parseInput } from '../api/api-schema.js';
import { databaseDialect } from '../stores/database-url.js';
import { writeExport } from '../http/export.js';
import { csvCell } from '../requests/export-lines.js';
import { toApiEvent, toApiRequest } from '../requests/serialize.js';
import { openStores } from '../stores/open-store.js';
import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { AuditService, type VerifyKeys } from '../audit/service.js';
import { maxDelayFromEnv } from '../audit/integrator.js';
import { auditReportJson } from '../audit/verify.js';
import { checkpointCheck } from '../audit/checkpoint.js';
import { openSigningKeys } from '../signing/keys.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';
import { flag, parseArgs, UsageError } from './args.js';

/**
 * The database to read: `--db`, else `TOLLGATE_DB`, else `./data/tollgate.db`. An auditor's query must never create a
 * database: a SQLite file that is not there is an error naming the absolute path looked at and the setting that named
 * it (run from another folder, `./data/tollgate.db` is somewhere else entirely).
 */
export function existingDatabase(
  fromFlag: string | undefined,
  fromEnv: string | undefined,
  cwd = process.cwd(),
): string {
  const [db, source] = fromFlag
    ? [fromFlag, '--db']
    : fromEnv
      ? [fromEnv, 'TOLLGATE_DB']
      : ['./data/tollgate.db', 'the default, relative to this folder'];
  if (databaseDialect(db) !== 'sqlite') return db;
  const path = resolve(cwd, db);
  if (!existsSync(path)) {
    throw new UsageError(
      `no database at ${path} (from ${source}); point --db or TOLLGATE_DB at the file tollgate serve uses, or at its postgres:// URL`,
    );
  }
  return db;
}

const TABLE_COLUMNS = [
  'created_at',
  'id',
  'status',
  'tool_name',
  'agent_id',
  'responded_by',
  'responded_by_person',
  'on_behalf_of',
  'reason',
] as const;

/**
 * `tollgate audit verify [--keys JWKS_FILE] [--since ISO] [--db …] [--json]`: checks the audit trail and every request
 * (`audit/verify.ts`); exit 0 when intact, 1 naming the first problem. Signatures are checked against the pinned
 * JWKS when `--keys` names one, else against the deployment's own keys, and the output says which.
 */
async function verify(args: ReturnType<typeof parseArgs>): Promise<number> {
  const fromText = flag(args, 'since') ?? flag(args, 'from');
  const from = fromText === undefined ? undefined : new Date(fromText);
  if (from && Number.isNaN(from.getTime()))
    throw new UsageError(`--since: not a time: ${fromText} (use 2026-01-31 or an ISO time)`);
  const keysFile = flag(args, 'keys');
  const pinned = keysFile === undefined ? null : await readPinnedKeys(keysFile);
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  try {
    if (
      !(await stores.audit.checkpoints(0, 1).then(
        () => true,
        () => false,
      ))
    ) {
      process.stderr.write(
        'this database has no audit trail of this version yet: run `tollgate migrate` (or start `tollgate serve` on it) once to add it\n',
      );
      return 1;
    }
    const service = new AuditService(stores.audit, stores.store, null, {
      maxDelayMs: maxDelayFromEnv(process.env),
    });
    // Read-only: verify creates, moves or generates no key; without --keys it checks against the deployment's own.
    const gatewayKeys = pinned ? null : await openSigningKeys(process.env, stores, { readOnly: true });
    const keys: VerifyKeys = pinned
      ? { keys: pinned, source: 'pinned', inDatabase: false }
      : { keys: (await gatewayKeys!.jwks()).keys, source: 'gateway', inDatabase: gatewayKeys!.place === 'database' };
    service.useKeys(async () => keys);
    service.useCheckpointCheck(checkpointCheck({ jwks: async () => ({ keys: keys.keys }) }));
    const report = await service.verify(from);
    if (flag(args, 'json') === 'true')
      process.stdout.write(`${terminalJson(JSON.stringify(auditReportJson(report)))}\n`);
    else {
      const against =
        keys.source === 'pinned' ? `keys pinned from ${keysFile}` : `the deployment's keys (${keys.keys.length})`;
      if (report.ok) {
        const head = report.head ? `; head: seq ${report.head.eventId} ${report.head.hash}` : '';
        const legacy = report.legacy
          ? `; the first ${report.legacy.size} events predate receipts (closed by a signed checkpoint, ${report.legacy.at})`
          : '';
        const cp = report.checkpoint;
        const pruned = cp
          ? `; starts after the signed prune checkpoint at seq ${cp.eventId} (requests decided before ${cp.prunedBefore} were pruned)`
          : '';
        process.stdout.write(
          `audit trail intact: ${report.events} events, ${report.receipts} receipts, ${report.checkpoints} checkpoints, ${report.requests} requests, checked against ${against}${head}${legacy}${pruned}\n`,
        );
      } else process.stdout.write(`audit trail BROKEN: ${terminalText(report.problem!.message)}\n`);
      if (report.pending.events)
        process.stdout.write(`${report.pending.events} events still wait for the integrator\n`);
      if (report.keys.warning) process.stdout.write(`warning: ${report.keys.warning}\n`);
    }
    return report.ok ? 0 : 1;
  } finally {
    await stores.close();
  }
}

/** The public keys of a JWKS file an auditor pinned (`tollgate keys export` writes one). */
async function readPinnedKeys(path: string): Promise<JWK[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--keys ${path}: not a readable JSON file (${(error as Error).message})`);
  }
  const keys = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new UsageError(
      `--keys ${path}: no keys in it (expected a JWKS: {"keys": [...]}, as \`tollgate keys export\` writes)`,
    );
  return keys as JWK[];
}

/** The audit query's filters from the flags (`--status`, `--tool`, `--agent`, `--agent-kind`, `--repo`, `--approver`, `--person`, `--since`, `--until`). */
function queryOf(args: ReturnType<typeof parseArgs>, limit: string | undefined) {
  const q = parseInput(
    listQuerySchema,
    {
      status: flag(args, 'status'),
      tool_name: flag(args, 'tool'),
      agent_id: flag(args, 'agent'),
      agent_kind: flag(args, 'agent-kind'),
      repo: flag(args, 'repo'),
      responded_by: flag(args, 'approver'),
      person: flag(args, 'person'),
      since: flag(args, 'since'),
      until: flag(args, 'until'),
      limit,
    },
    'flags',
  );
  return {
    status: q.status,
    toolName: q.tool_name,
    agentId: q.agent_id,
    agentKind: q.agent_kind,
    repo: q.repo,
    respondedBy: q.responded_by,
    respondedByPeople: q.person === undefined ? undefined : [q.person],
    includeVotes: true,
    since: q.since,
    until: q.until,
    limit: q.limit,
  };
}

/**
 * `tollgate audit export --format csv|ndjson [filters]`: every matching request to stdout, as `GET /v1/requests/export`
 * writes it, streamed with back-pressure (a million rows need no more memory than one batch).
 */
async function exportAll(args: ReturnType<typeof parseArgs>): Promise<number> {
  const format = flag(args, 'format') ?? 'ndjson';
  if (format !== 'csv' && format !== 'ndjson') throw new UsageError('--format must be csv or ndjson');
  const { limit: _limit, ...query } = queryOf(args, undefined);
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  try {
    if (!process.stdout.isTTY) {
      await writeExport(process.stdout, stores.store.exportPages(query, format), format);
      return 0;
    }
    const sink = terminalSink(format === 'csv' ? terminalText : terminalJson);
    await writeExport(sink, stores.store.exportPages(query, format), format);
    sink.end();
    await finished(sink);
    return 0;
  } finally {
    await stores.close();
  }
}

/** A stream to stdout that passes every chunk through `safe` (`writeExport` writes whole strings, never half a character). */
function terminalSink(safe: (text: string) => string): Transform {
  const sink = new Transform({
    decodeStrings: false,
    transform: (chunk: string, _encoding, done) => done(null, safe(chunk)),
  });
  sink.pipe(process.stdout, { end: false });
  return sink;
}

/** Prints matching requests (or one request's events with `--events ID`), exports them (`audit export`), or verifies the chain (`audit verify`). */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: [
      'db',
      'status',
      'tool',
      'agent',
      'agent-kind',
      'repo',
      'approver',
      'person',
      'since',
      'until',
      'limit',
      'format',
      'events',
      'from',
      'keys',
    ],
    booleans: ['json'],
  });
  if (args.positionals[0] === 'verify') return verify(args);
  if (args.positionals[0] === 'export') return exportAll(args);
  const format = flag(args, 'format') ?? 'table';
  if (!['table', 'csv', 'ndjson'].includes(format)) throw new UsageError(`--format must be table, csv or ndjson`);
  // A SQLite file or a postgres:// URL, read as it is (no migrations applied).
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  const store = stores.store;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const json = (value: unknown) => out(terminalJson(JSON.stringify(value)));
  try {
    const eventsOf = flag(args, 'events');
    if (eventsOf) {
      for (const event of await store.events(eventsOf)) json(toApiEvent(event));
      return 0;
    }
    const page = await store.list(queryOf(args, flag(args, 'limit') ?? '50'));
    const rows = page.items.map(toApiRequest);
    if (format === 'ndjson') rows.forEach(json);
    else if (format === 'csv') {
      const columns = Object.keys(rows[0] ?? { id: '' });
      const csvLine = (line: string) => out(process.stdout.isTTY ? terminalText(line) : line);
      csvLine(columns.join(','));
      rows.forEach((r) => csvLine(columns.map((c) => csvCell(r[c as keyof typeof r])).join(',')));
    } else {
      const cells = rows.map((r) =>
        TABLE_COLUMNS.map((c) => terminalText(String(r[c] ?? '-'), { oneLine: true }).slice(0, 40)),
      );
      const widths = TABLE_COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
      out(TABLE_COLUMNS.map((c, i) => c.padEnd(widths[i]!)).join('  '));
      cells.forEach((row) => out(row.map((v, i) => v.padEnd(widths[i]!)).join('  ')));
      if (page.nextCursor) out(`… more rows: raise --limit or narrow the filters`);
    }
    return 0;
  } finally {
    await stores.close();
  }
}
