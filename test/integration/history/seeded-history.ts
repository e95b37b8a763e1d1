/**
 * A seeded history (bench/seed.ts's decided and pending requests across a year) built once per test file, and a copy
 * of it for each test: a test that prunes owns the rows it prunes, so the file's tests pass in any order. On SQLite a
 * copy is a backup of the seeded file with the signing key files beside it; on PostgreSQL a database made from a template that holds the rows (a
 * `CREATE DATABASE … TEMPLATE` takes a fraction of the copy from SQLite).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedHistory } from '../../../bench/seed.js';
import { keyFilePath, retiredFilePath } from '../../../src/signing/key-file.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { openDatabase } from '../../../src/stores/sqlite/database.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

/** One database of a test: where it is (a file or a URL), and how to drop it. */
export interface HistoryCopy {
  db: string;
  drop(): Promise<void>;
}

/** The seeded rows, and fresh copies of them (or of a copy a test prepared) on either dialect. */
export interface SeededHistory {
  /** A new SQLite file holding the rows of `source` (the seeded rows unless given). */
  sqliteCopy(source?: HistoryCopy): Promise<HistoryCopy>;
  /** A new PostgreSQL database holding the rows of `source` (one with no open connection; the seeded rows unless given). */
  postgresCopy(source?: HistoryCopy): Promise<HistoryCopy>;
  /** Drops what was made: the template database and the folder of files. */
  close(): Promise<void>;
}

/** Seeds `rows` requests into a SQLite file (once); the PostgreSQL template is made on the first copy asked for. */
export function seededHistory(rows: number): SeededHistory {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-history-'));
  const seeded = join(dir, 'seed.db');
  seedHistory(seeded, { rows });
  let files = 0;
  let template: Promise<FreshDatabase> | undefined;
  const pgTemplate = () =>
    (template ??= (async () => {
      const fresh = await freshDatabase({ migrate: true });
      const source = openDatabase(seeded);
      const target = openPostgres(fresh.url, { poolSize: 1 });
      try {
        await copySqliteToPostgres(source, target);
      } finally {
        source.close();
        await target.close();
      }
      return fresh;
    })());
  return {
    async sqliteCopy(source) {
      const file = join(dir, `copy-${++files}.db`);
      const db = new Database(source?.db ?? seeded, { readonly: true });
      try {
        await db.backup(file);
      } finally {
        db.close();
      }
      // A SQLite database's signing keys live beside it, not in it: a copy an operator makes takes them along, or
      // what the original signed (a prune's checkpoint) no longer verifies in the copy.
      if (source) {
        for (const [from, to] of [
          [keyFilePath(source.db), keyFilePath(file)],
          [retiredFilePath(source.db), retiredFilePath(file)],
        ] as const)
          if (existsSync(from)) copyFileSync(from, to);
      }
      const made = [file, keyFilePath(file), retiredFilePath(file)];
      return { db: file, drop: async () => made.forEach((f) => rmSync(f, { force: true })) };
    },
    async postgresCopy(source) {
      const copyOf = source ? new URL(source.db).pathname.slice(1) : (await pgTemplate()).name;
      const fresh = await freshDatabase({ copyOf });
      return { db: fresh.url, drop: () => fresh.drop() };
    },
    async close() {
      if (template) await (await template).drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
