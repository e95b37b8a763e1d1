/**
 * @module stores/migrations-folder
 * Where drizzle-kit's generated SQL for one dialect lives (`migrations/sqlite/`, `migrations/postgres/`), whether
 * tollgate runs from `src/` (tsx) or from `dist/src/` (built).
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SQL dialects tollgate stores requests in. */
export type Dialect = 'sqlite' | 'postgres';

/** The migrations folder of `dialect`. @throws Error when the package was installed without it. */
export function migrationsFolder(dialect: Dialect): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '../../migrations', dialect), resolve(here, '../../../migrations', dialect)];
  const found = candidates.find((dir) => existsSync(resolve(dir, 'meta/_journal.json')));
  if (!found) throw new Error(`migrations folder not found (looked in ${candidates.join(', ')})`);
  return found;
}
