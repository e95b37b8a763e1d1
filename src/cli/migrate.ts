/**
 * @module cli/migrate
 * `tollgate migrate`: applies the SQL migrations to the database (a SQLite file, or PostgreSQL at a postgres:// URL);
 * `--from <sqlite file> --to <postgres URL>` copies an existing SQLite database to PostgreSQL.
 */
import { existsSync } from 'node:fs';
import { databaseDialect, redactUrl } from '../stores/database-url.js';
import { openStores, type OpenStores } from '../stores/open-store.js';
import { flag, parseArgs, UsageError } from './args.js';

/** Applies migrations; exit code 0 on success. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['db', 'from', 'to'] });
  const from = flag(args, 'from');
  if (from !== undefined || flag(args, 'to') !== undefined) return copy(from, flag(args, 'to'));
  const path = flag(args, 'db') ?? process.env.TOLLGATE_DB ?? './data/tollgate.db';
  // The chooser migrates as it opens (SQLite file or postgres:// URL); waiting for PostgreSQL is logged to stderr.
  const stores = await openStores(path, { env: process.env, logger: stderrLogger });
  try {
    if (stores.rowsAwaitSigning()) await signRowsKeptFromBefore(stores);
  } finally {
    await stores.close();
  }
  process.stdout.write(`migrations applied to ${redactUrl(path)}\n`);
  return 0;
}

/**
 * This run added row signatures: sign the tokens and away changes kept from before with the key `serve` signs with,
 * as `serve` would at this upgrade (after it, nothing signs a row it did not write).
 */
async function signRowsKeptFromBefore(stores: OpenStores): Promise<void> {
  const [{ openSigningKeys }, { Witness }] = await Promise.all([
    import('../signing/keys.js'),
    import('../audit/witness.js'),
  ]);
  const keys = await openSigningKeys(process.env, stores, { log: (_, line) => process.stderr.write(`${line}\n`) });
  const witness = new Witness(await keys.ready(), 0, (await keys.jwks()).keys);
  const { tokens, away } = await stores.signRowsAtUpgrade(witness);
  if (tokens || away) process.stdout.write(`signed ${tokens} API tokens and ${away} away changes kept from before\n`);
}

/** What waiting for the database says, one line each on stderr (stdout stays the result). */
const stderrLogger = {
  info: (_: object, message: string) => void process.stderr.write(`${message}\n`),
  warn: (_: object, message: string) => void process.stderr.write(`${message}\n`),
};

/** `--from ./data/tollgate.db --to postgres://…`: migrates both, then copies every row (one transaction). */
async function copy(from: string | undefined, to: string | undefined): Promise<number> {
  if (!from || !to || databaseDialect(from) !== 'sqlite' || databaseDialect(to) !== 'postgres') {
    throw new UsageError('--from takes the SQLite file to copy and --to the postgres:// URL to copy it to');
  }
  // Opening a missing file would create an empty database and copy nothing, silently.
  if (!existsSync(from)) throw new UsageError(`--from: no SQLite file at ${from}`);
  const [{ applyMigrations, openDatabase }, { copySqliteToPostgres }, { SqliteSecrets }, { keyAfterCopy }] =
    await Promise.all([
      import('../stores/sqlite/database.js'),
      import('../stores/postgres/copy-from-sqlite.js'),
      import('../stores/sqlite/secrets.js'),
      import('../signing/key-default-file.js'),
    ]);
  const sqlite = openDatabase(from);
  try {
    applyMigrations(sqlite);
    const target = await openStores(to, { env: process.env, logger: stderrLogger });
    try {
      const counts = await copySqliteToPostgres(sqlite, target.postgres!);
      process.stdout.write(
        `copied ${counts.requests} requests, ${counts.events} events, ${counts.messages} cards, ${counts.tokens} API tokens and ${counts.grants} grants from ${from} to ${redactUrl(to)} (rows already there were kept)\n`,
      );
      // The signing key is not a row: say where it is and what to set, or the replicas sign with a key of their own.
      const databaseKey = (await new SqliteSecrets(sqlite.sqlite).find('verdict_signing')) !== null;
      process.stdout.write(`${keyAfterCopy(from, databaseKey).join('\n')}\n`);
    } finally {
      await target.close();
    }
  } finally {
    sqlite.close();
  }
  return 0;
}
