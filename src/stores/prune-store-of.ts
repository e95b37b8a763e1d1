/**
 * @module stores/prune-store-of
 * The {@link PruneStore} of an opened database, in its dialect: for `tollgate prune` and the gateway's retention.
 */
import type { OpenStores } from './open-store.js';
import type { PruneStore } from '../history/prune.js';

/**
 * The prune's side of the database `stores` opened (its pool on PostgreSQL, its connection on SQLite). Each dialect's
 * module is loaded only when used.
 */
export async function pruneStoreOf(stores: Pick<OpenStores, 'postgres' | 'sqlite'>): Promise<PruneStore> {
  if (stores.postgres) {
    const { PostgresPruneStore } = await import('./postgres/prune-store.js');
    return new PostgresPruneStore(stores.postgres);
  }
  const { SqlitePruneStore } = await import('./sqlite/prune-store.js');
  return new SqlitePruneStore(stores.sqlite!);
}
