/**
 * @module stores/postgres/create-batch
 * Runs the batched create (`creates.ts`) for the PostgreSQL store's group commit. The statement is all or nothing,
 * since its receipt signs every event of the batch: when one request's idempotency key exists, the batch is filed one
 * by one instead, each create finding its key's row or inserting, and failing alone.
 */
import type pg from 'pg';
import { ServiceUnavailableError } from '../../api/errors.js';
import type { Witness } from '../../audit/witness.js';
import type { CreateResult, NewCreate } from '../../requests/store.js';
import type { ConfirmationRequest } from '../../requests/types.js';
import { CREATE_CONFLICT, createBatchParams } from './creates.js';
import { fromPostgresError, postgresCode, withPostgresErrors } from './errors.js';
import { named, SQL_TEXT } from './statements.js';

/** A create's outcome inside a batch: its row, or why it failed alone. */
export type CreateOutcome = CreateResult | { failed: unknown };

/** What a batch needs of the store: its pool, its witness, and the row of an idempotency key. */
export interface CreateBatchDeps {
  pool: pg.Pool;
  witness: Witness | null;
  byKey(filedBy: string, key: string): Promise<ConfirmationRequest | null>;
}

/** Throws only when the statement failed (nothing written), so the batch can be retried one by one. */
export async function createBatch(deps: CreateBatchDeps, items: NewCreate[]): Promise<CreateOutcome[]> {
  try {
    await insert(deps, items);
  } catch (error) {
    if (postgresCode(error) !== CREATE_CONFLICT) throw fromPostgresError(error);
    const outcomes: CreateOutcome[] = [];
    for (const item of items) outcomes.push(await createAlone(deps, item).catch((failed: unknown) => ({ failed })));
    return outcomes;
  }
  return items.map(({ request }) => ({ request, created: true }));
}

async function insert(deps: CreateBatchDeps, items: NewCreate[]): Promise<void> {
  await deps.pool.query(named(SQL_TEXT.create, createBatchParams(items, deps.witness)));
}

/** One create of a batch that met an existing key: its key's row, or its own insert (a racing create may win). */
async function createAlone(deps: CreateBatchDeps, item: NewCreate): Promise<CreateResult> {
  const { request } = item;
  for (let attempt = 0; attempt < 3; attempt++) {
    const key = request.idempotencyKey;
    const existing = key ? await withPostgresErrors(() => deps.byKey(request.filedBy ?? '', key)) : null;
    if (existing) return { request: existing, created: false };
    try {
      await insert(deps, [item]);
      return { request, created: true };
    } catch (error) {
      if (postgresCode(error) !== CREATE_CONFLICT) throw fromPostgresError(error);
    }
  }
  throw new ServiceUnavailableError(
    'a create with the same idempotency key was in flight; retry',
    'tollgate_database_busy',
  );
}
