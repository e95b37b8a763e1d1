/**
 * @module stores/open-store
 * The one chooser of a database from `--db` / `TOLLGATE_DB`: a file path is SQLite (the embedded default), a
 * `postgres://` or `postgresql://` URL is PostgreSQL (for replicas on several hosts), and any other `scheme:` is an
 * error raised before anything is created. Nothing else constructs stores.
 *
 * @remarks Left out: choosing the scheduler (`REDIS_URL`, in `server.ts`).
 */
import { ValidationError } from '../api/errors.js';
import { databaseDialect } from './database-url.js';
import type { TokenStore } from '../tokens/token-store.js';
import type { GrantStore } from '../policy/grants.js';
import type { Dialect } from './migrations-folder.js';
import type { DatabaseLogger, OpenPostgres } from './postgres/database.js';
import type { OpenDatabase } from './sqlite/database.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { AuditChain } from '../audit/types.js';
import type { IntegrationStore } from '../audit/integrator.js';
import type { Witness } from '../audit/witness.js';
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import type { SharedMarks } from '../contracts/shared-marks.js';
import type { ResolutionCache } from '../people/email-resolution.js';
import type { EventLog } from '../events/types.js';
import type { InsightsStore } from '../insights/types.js';
import type { PushSubscriptionStore } from '../push/subscriptions.js';
import type { AwayStore } from '../people/away-book.js';
import { rowsAtUpgrade, type RowsAtUpgrade } from './rows-at-upgrade.js';

/** Everything that lives in the database, opened and migrated. */
export interface OpenStores extends RowsAtUpgrade {
  dialect: Dialect;
  store: ConfirmationStore;
  tokens: TokenStore;
  /** Standing grants of the approval policy (absent: rules offer no grant buttons). */
  grants?: GrantStore;
  /** The database as it may be shown (a path, or a URL without its password). */
  shown: string;
  /** The PostgreSQL pool, when the dialect is PostgreSQL. */
  postgres?: OpenPostgres;
  /** The SQLite connection, when the dialect is SQLite (for adapters that keep a table of their own). */
  sqlite?: OpenDatabase['sqlite'];
  /** State every replica must see (login links, sign-outs, Feishu nonces, call leases): PostgreSQL only. */
  marks?: SharedMarks;
  /** Web sessions signed out before their expiry, kept in the database on both dialects (`marks` on PostgreSQL). */
  signOuts: SharedMarks;
  /** The audit chain, for `audit verify` and the published head. */
  audit: AuditChain;
  /** The integrator's side of the audit trail (`audit/integrator.ts`): places events after commit. */
  integration: IntegrationStore;
  /**
   * Signs what the stores commit from now on (`audit/witness.ts`), and acts only on grants, tokens and away rows it
   * witnessed (`audit/witnessed-grants.ts`, `audit/witnessed-rows.ts`): set by `serve` once the key is loaded.
   */
  useWitness(witness: Witness | null): void;
  /** Keys every replica and restart shares (web sessions, email links), generated once and kept in the database. */
  secrets: DeploymentSecrets;
  /** The event stream's reads and sink cursors. */
  events: EventLog;
  /** The history's aggregates (`GET /v1/insights`), computed in SQL. */
  insights: InsightsStore;
  /** Web Push subscriptions: each person's devices, on both dialects. */
  pushSubscriptions: PushSubscriptionStore;
  /** Away windows set at run time (`people_away`). */
  away: AwayStore;
  /** The people directory's email look-ups, shared by replicas: PostgreSQL only (SQLite keeps them in memory). */
  resolutions?: ResolutionCache;
  /** Whether the database answers (for `/readyz`); rejects when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link openStores}. */
export interface OpenStoresOptions {
  /** `TOLLGATE_DB_POOL` (pool size) and `TOLLGATE_DB_WAIT_S` (start-up wait) are read from here. */
  env?: Record<string, string | undefined>;
  logger?: DatabaseLogger;
  /**
   * Set by `serve` (not `migrate`): hold this replica's lock on PostgreSQL, refusing to start beside a replica that
   * cannot share the database with this one (see `postgres/replica-guard.ts`). `sharedScheduler`: `REDIS_URL` is set.
   */
  replica?: { sharedScheduler: boolean };
  /** Apply pending migrations (default true); readers such as `tollgate audit` pass false and change nothing. */
  migrate?: boolean;
  /**
   * Set by `serve`: on SQLite, checkpoint the WAL from a worker thread instead of inside the commit that fills it
   * (`sqlite/checkpointer.ts`). Short-lived tools keep SQLite's own checkpoints.
   */
  backgroundCheckpoints?: boolean;
}

/**
 * Opens the database `db` names, applies its migrations (PostgreSQL: after waiting, bounded, for the server), and
 * returns the stores on it.
 * @example const { store, tokens, close } = await openStores(config.dbPath, { env: config.env, logger });
 */
export async function openStores(db: string, options: OpenStoresOptions = {}): Promise<OpenStores> {
  return databaseDialect(db) === 'postgres' ? openPostgresStores(db, options) : openSqliteStores(db, options);
}

async function openSqliteStores(path: string, options: OpenStoresOptions): Promise<OpenStores> {
  const [
    { applyMigrations, openDatabase, sqliteCacheMbFrom, sqliteSyncFrom },
    { SqliteConfirmationStore },
    { SqliteTokenStore },
    { SqliteGrantStore },
    { startCheckpointer },
  ] = await Promise.all([
    import('./sqlite/database.js'),
    import('./sqlite/store.js'),
    import('./sqlite/token-store.js'),
    import('./sqlite/grant-store.js'),
    import('./sqlite/checkpointer.js'),
  ]);
  const [{ SqliteSecrets }, { SqliteAuditChain }, { SqliteEventLog }, { SqliteMarks }, { SqliteAwayStore }] =
    await Promise.all([
      import('./sqlite/secrets.js'),
      import('./sqlite/audit-chain.js'),
      import('./sqlite/event-log.js'),
      import('./sqlite/marks.js'),
      import('./sqlite/away-store.js'),
    ]);
  const [{ SqlitePushSubscriptions }, { SqliteInsights }, { SqliteIntegration }] = await Promise.all([
    import('./sqlite/push-subscriptions.js'),
    import('./sqlite/insights.js'),
    import('./sqlite/audit-integration.js'),
  ]);
  const open = openDatabase(path, {
    sync: sqliteSyncFrom(options.env ?? {}),
    cacheMb: sqliteCacheMbFrom(options.env ?? {}),
  });
  let upgrading = false;
  try {
    upgrading = (options.migrate ?? true) && SqliteTokenStore.predatesSigning(open.sqlite);
    if (options.migrate ?? true) applyMigrations(open);
  } catch (error) {
    open.close();
    throw error;
  }
  const store = new SqliteConfirmationStore(open);
  const checkpointer =
    options.backgroundCheckpoints && path !== ':memory:'
      ? startCheckpointer(open.sqlite, path, {
          onError: (error) =>
            options.logger?.warn(
              { err: error },
              'WAL checkpoint worker failed; the database checkpoints in its commits again',
            ),
        })
      : null;
  const grants = new SqliteGrantStore(open.sqlite);
  const tokens = new SqliteTokenStore(open.sqlite);
  const away = new SqliteAwayStore(open.sqlite);
  const close = async () => {
    await checkpointer?.close();
    await store.close();
  };
  return {
    dialect: 'sqlite',
    store,
    insights: new SqliteInsights(open),
    tokens,
    grants,
    secrets: new SqliteSecrets(open.sqlite),
    signOuts: new SqliteMarks(open.sqlite),
    audit: new SqliteAuditChain(open.sqlite),
    integration: new SqliteIntegration(open.sqlite),
    useWitness: (witness) => {
      store.useWitness(witness);
      grants.keys = witness?.keys ?? null;
      tokens.useWitness(witness);
      away.useWitness(witness);
    },
    ...rowsAtUpgrade(upgrading, { tokens, away }),
    events: new SqliteEventLog(open.sqlite),
    pushSubscriptions: new SqlitePushSubscriptions(open.sqlite),
    away,
    sqlite: open.sqlite,
    shown: path,
    ping: () => store.ping(),
    close,
  };
}

async function openPostgresStores(url: string, options: OpenStoresOptions): Promise<OpenStores> {
  const env = options.env ?? {};
  const [
    database,
    { PostgresConfirmationStore },
    { PostgresTokenStore },
    { guardReplicas },
    { PostgresMarks },
    { PostgresGrantStore },
  ] = await Promise.all([
    import('./postgres/database.js'),
    import('./postgres/store.js'),
    import('./postgres/token-store.js'),
    import('./postgres/replica-guard.js'),
    import('./postgres/marks.js'),
    import('./postgres/grant-store.js'),
  ]);
  const [
    { PostgresSecrets },
    { PostgresAuditChain },
    { PostgresResolutionCache },
    { PostgresEventLog },
    { PostgresAwayStore },
  ] = await Promise.all([
    import('./postgres/secrets.js'),
    import('./postgres/audit-chain.js'),
    import('./postgres/resolutions.js'),
    import('./postgres/event-log.js'),
    import('./postgres/away-store.js'),
  ]);
  const [{ PostgresPushSubscriptions }, { PostgresInsights }, { PostgresIntegration }] = await Promise.all([
    import('./postgres/push-subscriptions.js'),
    import('./postgres/insights.js'),
    import('./postgres/audit-integration.js'),
  ]);
  const open = database.openPostgres(url, {
    poolSize: numberFrom(env, 'TOLLGATE_DB_POOL'),
    logger: options.logger,
  });
  let guard: { release(): Promise<void> } | undefined;
  let upgrading = false;
  try {
    await database.waitForPostgres(open, { waitForS: numberFrom(env, 'TOLLGATE_DB_WAIT_S'), logger: options.logger });
    upgrading = (options.migrate ?? true) && (await PostgresTokenStore.predatesSigning(open));
    if (options.migrate ?? true) await database.applyPostgresMigrations(open);
    if (options.replica)
      guard = await guardReplicas(open, { sharedScheduler: options.replica.sharedScheduler, logger: options.logger });
  } catch (error) {
    await open.close();
    throw error;
  }
  const store = new PostgresConfirmationStore(open);
  const grants = new PostgresGrantStore(open);
  const tokens = new PostgresTokenStore(open);
  const away = new PostgresAwayStore(open);
  const close = async () => {
    await guard?.release();
    await store.close();
  };
  const marks = new PostgresMarks(open);
  return {
    dialect: 'postgres',
    store,
    insights: new PostgresInsights(open),
    tokens,
    grants,
    marks,
    signOuts: marks,
    secrets: new PostgresSecrets(open),
    audit: new PostgresAuditChain(open),
    integration: new PostgresIntegration(open),
    useWitness: (witness) => {
      store.useWitness(witness);
      grants.keys = witness?.keys ?? null;
      tokens.useWitness(witness);
      away.useWitness(witness);
    },
    ...rowsAtUpgrade(upgrading, { tokens, away }),
    resolutions: new PostgresResolutionCache(open),
    events: new PostgresEventLog(open),
    pushSubscriptions: new PostgresPushSubscriptions(open),
    away,
    shown: open.shownUrl,
    postgres: open,
    ping: () => store.ping(),
    close,
  };
}

/** A non-negative number from `env[name]`, undefined when unset. @throws ValidationError naming the variable. */
function numberFrom(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new ValidationError(`${name}: expected a number, got ${raw}`, [{ path: name, message: 'expected a number' }]);
  return value;
}
