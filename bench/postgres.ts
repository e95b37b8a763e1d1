/**
 * @module bench/postgres
 * The PostgreSQL the `postgres` figures use: `TOLLGATE_BENCH_PG` or postgres://postgres@127.0.0.1:5432. Every
 * gateway gets its own fresh database `tollgate_bench_<name>_<random>`, dropped after its scenario.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A reachable server on which the bench creates and drops databases. */
export interface BenchPostgres {
  /** Creates an empty database for the gateway `name`; resolves with its postgres:// URL. */
  fresh(name: string): Promise<string>;
  /** Runs a `count(*) AS n` query on the database at `url`. */
  count(url: string, sql: string, params?: unknown[]): Promise<number>;
  /** Whether the database `name` exists. */
  exists(name: string): Promise<boolean>;
  /**
   * Makes `to` a copy of `from` (each a database name or a URL of one; `CREATE DATABASE … TEMPLATE`, so nothing may be
   * connected to `from`): an existing `to` is replaced, a new one is made under a temporary name and then renamed.
   */
  copyDatabase(from: string, to: string): Promise<void>;
  /** Drops every database created so far (their gateways have stopped). */
  dropAll(): Promise<void>;
  close(): Promise<void>;
}

/** Connects to the server's `postgres` database, or resolves null when none answers. */
export async function postgresForBench(log: (line: string) => void): Promise<BenchPostgres | null> {
  const base = new URL(process.env.TOLLGATE_BENCH_PG || 'postgres://postgres@127.0.0.1:5432/postgres');
  const admin = new pg.Client({ connectionString: base.href, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch (error) {
    log(`no PostgreSQL at ${base.host}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  const created: string[] = [];
  const urlOf = (db: string) => Object.assign(new URL(base.href), { pathname: `/${db}` }).href;
  const dropAll = async () => {
    // FORCE: a gateway killed by SIGKILL may leave a backend behind for a moment.
    for (const db of created.splice(0)) await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  };
  return {
    async fresh(name) {
      const db = `tollgate_bench_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE "${db}"`);
      created.push(db);
      return urlOf(db);
    },
    async exists(name) {
      return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    },
    async copyDatabase(from, to) {
      const nameOf = (db: string) => (db.includes('://') ? decodeURIComponent(new URL(db).pathname.slice(1)) : db);
      const [source, target] = [nameOf(from), nameOf(to)];
      const temporary = `${target.slice(0, 50)}_tmp_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE "${temporary}" TEMPLATE "${source}"`);
      await admin.query(`DROP DATABASE IF EXISTS "${target}" WITH (FORCE)`);
      await admin.query(`ALTER DATABASE "${temporary}" RENAME TO "${target}"`);
    },
    async count(url, sql, params = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>(sql, params);
        return Number(rows[0]!.n);
      } finally {
        await client.end();
      }
    },
    dropAll,
    async close() {
      await dropAll();
      await admin.end();
    },
  };
}
