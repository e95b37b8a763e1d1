/**
 * @module stores/verdict-tokens
 * Verdict tokens as rows leave the store: a {@link ConfirmationStore} wrapper that attaches to every final row the
 * token minted when it settled (`audit/witness.ts`, in the settling transaction) and stored beside it, so
 * `toApiRequest` — synchronous, called from a dozen places — shows it without knowing about keys. A row the store has
 * just settled carries its token already; a row only read gets its stored token in one query per read (final rows
 * only). **Nothing here signs**: a row settled by hand in the database, or before the fifth stage, has no stored token
 * and answers with `verdict_token: null` (docs/audit.md, "The proof").
 */
import { attachVerdictToken, hasVerdictToken } from '../requests/serialize.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { hasVerdict } from '../signing/verdict.js';

/** The store whose final rows leave it with their stored verdict tokens; see the module comment. */
export function withVerdictTokens(store: ConfirmationStore): ConfirmationStore {
  const attach = async (rows: readonly (ConfirmationRequest | null | undefined)[]): Promise<void> => {
    const cold = rows.filter((r): r is ConfirmationRequest => !!r && hasVerdict(r) && !hasVerdictToken(r));
    if (cold.length === 0) return;
    const tokens = await store.verdictTokens(cold.map((r) => r.id));
    for (const r of cold) {
      const token = tokens.get(r.id);
      if (token) attachVerdictToken(r, token);
    }
  };
  const wrapped: Partial<ConfirmationStore> = {
    async create(...args) {
      const result = await store.create(...args);
      await attach([result.request]);
      return result;
    },
    async get(id) {
      const r = await store.get(id);
      await attach([r]);
      return r;
    },
    async getMany(ids) {
      const rows = await store.getMany(ids);
      await attach(rows);
      return rows;
    },
    async getByIdempotencyKey(key, filedBy) {
      const r = await store.getByIdempotencyKey(key, filedBy);
      await attach([r]);
      return r;
    },
    async decide(id, vote) {
      const result = await store.decide(id, vote);
      if ('request' in result) await attach([result.request]);
      return result;
    },
    async finish(...args) {
      const r = await store.finish(...args);
      await attach([r]);
      return r;
    },
    async list(query) {
      const page = await store.list(query);
      await attach(page.items);
      return page;
    },
  };
  // Everything else (and the readonly tuning fields) goes to the store itself, bound to it, so its private state works;
  // bound once per method, not on every call (appendEvent, events… are on the hot paths).
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const own = (wrapped as Record<PropertyKey, unknown>)[property];
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) bound.set(property, (method = (value as (...a: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
}
