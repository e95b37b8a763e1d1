/**
 * The PostgreSQL token store against the shared token store contract, on the real server at 127.0.0.1:5432: one
 * fresh database for this file (dropped after), emptied before each test.
 */
import { afterAll } from 'vitest';
import { openPostgres } from '../../src/stores/postgres/database.js';
import { PostgresTokenStore } from '../../src/stores/postgres/token-store.js';
import { freshDatabase, truncateAll, type FreshDatabase } from '../integration/postgres/fresh-database.js';
import { runTokenStoreContract } from './token-store.contract.js';

let database: Promise<FreshDatabase> | undefined;

afterAll(async () => {
  await (await database)?.drop();
});

runTokenStoreContract({
  name: 'postgres',
  async newStore() {
    const { url } = await (database ??= freshDatabase({ migrate: true }));
    await truncateAll(url);
    const open = openPostgres(url, { poolSize: 4 });
    return { store: new PostgresTokenStore(open), cleanup: () => open.close() };
  },
});
