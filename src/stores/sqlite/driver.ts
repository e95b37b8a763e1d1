/**
 * @module stores/sqlite/driver
 * The one place that loads better-sqlite3. Two builds of it are in the dependencies, because no single version runs
 * on every Node we support:
 * - `better-sqlite3` 12 (a required dependency) runs on Node 20, but on Node 24 its statements subclass the raw
 *   `node::ObjectWrap`, whose destructor asserts there is a current Node environment: a statement collected by the
 *   garbage collector outside one aborts the whole process (`Assertion failed: (env) != nullptr`, seen in CI and in
 *   many projects' trackers).
 * - `better-sqlite3-napi`, an alias of `better-sqlite3` 13 (the Node-API port that fixes it), is an optional
 *   dependency: its `engines` say Node ≥ 22, so npm leaves it out on Node 20 without a warning.
 *
 * The Node-API build is taken wherever it is installed (Node 22 and 24), the other elsewhere. Their JavaScript API is
 * the same. Every connection (the gateway's, the checkpointer's worker, tests, the bench) comes from here, so one
 * process never mixes the two and `SqliteError` is the class of the build in use.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

function driverPath(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) {
    try {
      return require.resolve('better-sqlite3-napi');
    } catch {
      // Not installed (the tree was installed under Node 20, or with --omit=optional): the classic build follows.
    }
  }
  return require.resolve('better-sqlite3');
}

/** The module path of the build in use (a worker thread loads the same one). */
export const SQLITE_DRIVER: string = driverPath();

/** The better-sqlite3 `Database` class of the build in use; `Database.SqliteError` is its error class. */
export const Database = require(SQLITE_DRIVER) as typeof BetterSqlite3;

/** An open better-sqlite3 connection. */
export type SqliteConnection = BetterSqlite3.Database;

/** A prepared statement of the build in use. */
export type SqliteStatement = BetterSqlite3.Statement;
