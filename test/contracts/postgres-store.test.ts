/**
 * The PostgreSQL store against the shared store contract, on the real server at 127.0.0.1:5432: one fresh database
 * for this file (dropped after), emptied before each test. The deadline is judged by the callers' (fixed) times here;
 * `test/integration/postgres/deadline.test.ts` covers the database's clock. `postgres-concurrency.test.ts` covers replicas racing.
 */
import { afterAll } from 'vitest';
import { openPostgres } from '../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../src/stores/postgres/store.js';
import { freshDatabase, truncateAll, type FreshDatabase } from '../integration/postgres/fresh-database.js';
import { runStoreContract } from './store.contract.js';

let database: Promise<FreshDatabase> | undefined;

afterAll(async () => {
  await (await database)?.drop();
});

runStoreContract({
  name: 'postgres',
  async newStore() {
    const { url } = await (database ??= freshDatabase({ migrate: true }));
    await truncateAll(url);
    const store = new PostgresConfirmationStore(openPostgres(url, { poolSize: 4 }), { deadlineClock: 'caller' });
    return { store, cleanup: () => store.close() };
  },
});
