/**
 * @module cli/migrate
 * `tollgate migrate`: applies the SQL migrations to the database file.
 */
import { applyMigrations, openDatabase } from '../requests/database.js';
import { flag, parseArgs } from './args.js';

/** Applies migrations; exit code 0 on success. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const path = flag(args, 'db') ?? process.env.TOLLGATE_DB ?? './data/tollgate.db';
  const db = openDatabase(path);
  try {
    applyMigrations(db);
  } finally {
    db.close();
  }
  process.stdout.write(`migrations applied to ${path}\n`);
  return 0;
}
