/**
 * @module signing/token-store
 * Where verdict tokens are made: a {@link ConfirmationStore} wrapper that signs every final row it hands to the gateway
 * and attaches the token to the row object (`attachVerdictToken`), so `toApiRequest` — synchronous, called from a
 * dozen places — shows it without knowing about keys. The store is where every row the API returns comes from (reads,
 * the decision, a cancel, a row a policy settled at filing), so no route needs to change.
 *
 * Cost: one signature per final row per process (the signer caches by request id), paid by the first read of the
 * row: for a decision, the decision itself (measured on SQLite: ~85–160 µs of CPU on a ~450 µs decision; filing a
 * request signs nothing). Signing lazily would not save it: the waiting agent reads the row at once. Bulk paths a tool never reads a token from are left alone: the expiry
 * sweep (`expireDue`) and exports (`scan`) sign nothing; a waiter woken by the expiry reads the row again and gets one.
 */
import { attachVerdictToken } from '../requests/serialize.js';
import type { ConfirmationStore, CreateResult, RequestPage, VoteResult } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { hasVerdict, type VerdictSigner } from './verdict.js';

/** The store `signer` signs final rows of, as they leave it; see the module comment. */
export function withVerdictTokens(store: ConfirmationStore, signer: VerdictSigner): ConfirmationStore {
  const attach = async (r: ConfirmationRequest | null | undefined): Promise<void> => {
    if (!r || !hasVerdict(r)) return;
    const cached = signer.cached(r);
    const token = cached ?? (await signer.sign(r, signer.needsEvents(r) ? await store.events(r.id) : undefined));
    attachVerdictToken(r, token);
  };
  const wrapped: Partial<ConfirmationStore> = {
    async create(...args) {
      const result: CreateResult = await store.create(...args);
      await attach(result.request);
      return result;
    },
    async get(id) {
      const r = await store.get(id);
      await attach(r);
      return r;
    },
    async getByIdempotencyKey(key) {
      const r = await store.getByIdempotencyKey(key);
      await attach(r);
      return r;
    },
    async decide(id, vote) {
      const result: VoteResult = await store.decide(id, vote);
      if (result.kind !== 'not_found') await attach(result.request);
      return result;
    },
    async finish(...args) {
      const r = await store.finish(...args);
      await attach(r);
      return r;
    },
    async list(query) {
      const page: RequestPage = await store.list(query);
      await Promise.all(page.items.map(attach));
      return page;
    },
  };
  // Everything else (and the readonly tuning fields) goes to the store itself, bound to it, so its private state works.
  return new Proxy(store, {
    get(target, property) {
      const own = (wrapped as Record<PropertyKey, unknown>)[property];
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
