/**
 * @module stores/verdict-tokens
 * Where verdict tokens are made: a {@link ConfirmationStore} wrapper that signs every final row it hands to the gateway
 * and attaches the token to the row object (`attachVerdictToken`), so `toApiRequest` — synchronous, called from a
 * dozen places — shows it without knowing about keys. The store is where every row the API returns comes from (reads,
 * the decision, a cancel, a row a policy settled at filing), so no route needs to change.
 *
 * Two ways in. A row the gateway has just settled itself (the vote that completed it, a cancel, an expiry, a policy's
 * verdict at filing) is signed as it is. A final row only *read* (another replica decided it, or this process
 * restarted) is signed only when it agrees with its audit events (`requestMismatch`, the check `audit verify` runs),
 * so a status flipped by hand in `confirmation_requests` does not get a signed approval; it answers with
 * `verdict_token: null` and `onRefused` is told. (Events written by hand are the chain's and the anchors' business.)
 *
 * Cost: one signature per final row per process (the signer caches by request id), paid where the row is settled:
 * ~110 µs of CPU per token; through `gateway.decide` on SQLite a decision's median went from ~450 to ~620 µs of CPU
 * (one run, shared machine); filing a pending request signs nothing. A cold read
 * adds one events query. Paths a tool never reads a token from are left alone: the expiry sweep (`expireDue`),
 * exports (`scan`) and the hook routes' same-call lookup (`newestSameCall`, on every hook call) sign nothing; a waiter
 * woken by the expiry, or a late verdict re-delivered, reads the row again and gets one.
 */
import type { CoverageMark } from '../audit/types.js';
import { requestMismatch } from '../audit/verify.js';
import { attachVerdictToken } from '../requests/serialize.js';
import type { ConfirmationStore } from '../requests/store.js';
import { eventsByRequest, type ConfirmationRequest } from '../requests/types.js';
import { hasVerdict, type VerdictSigner } from '../signing/verdict.js';

/** Options of {@link withVerdictTokens}. */
export interface VerdictTokenOptions {
  /** A final row read from the database disagrees with its events: no token was signed for it (log it). */
  onRefused?: (requestId: string, why: string) => void;
  /**
   * The chain's `coverage_started` mark (`AuditChain.coverage`), read once: rows settled before it are checked as
   * `audit verify` checks them. Absent: every row is held to full coverage.
   */
  coverage?: () => Promise<CoverageMark | null>;
}

/** The store `signer` signs final rows of, as they leave it; see the module comment. */
export function withVerdictTokens(
  store: ConfirmationStore,
  signer: VerdictSigner,
  options: VerdictTokenOptions = {},
): ConfirmationStore {
  let coverage: Promise<CoverageMark | null> | undefined;
  /** A row this gateway has just settled: its own write, signed as it is. */
  const settled = async (r: ConfirmationRequest | null | undefined): Promise<void> => {
    if (!r || !hasVerdict(r)) return;
    attachVerdictToken(
      r,
      signer.cached(r) ?? (await signer.sign(r, signer.needsEvents(r) ? await store.events(r.id) : undefined)),
    );
  };
  /** Final rows only read: signed from the cache, or after checking each against its events (one query for all). */
  const read = async (rows: readonly (ConfirmationRequest | null | undefined)[]): Promise<void> => {
    const cold: ConfirmationRequest[] = [];
    for (const r of rows) {
      if (!r || !hasVerdict(r)) continue;
      const hit = signer.cached(r);
      if (hit) attachVerdictToken(r, hit);
      else cold.push(r);
    }
    if (cold.length === 0) return;
    const events = await (cold.length === 1 ? store.events(cold[0]!.id) : store.eventsOf(cold.map((r) => r.id)));
    // By request: a verdict stream's opening read brings up to 5,000 final rows at once.
    const byRequest = eventsByRequest(events);
    const mark = await (coverage ??= options.coverage?.() ?? Promise.resolve(null));
    for (const r of cold) {
      const own = byRequest.get(r.id) ?? [];
      const why = requestMismatch(r, own, mark);
      if (why) options.onRefused?.(r.id, why.message);
      else attachVerdictToken(r, await signer.sign(r, own));
    }
  };
  const wrapped: Partial<ConfirmationStore> = {
    async create(...args) {
      const result = await store.create(...args);
      await (result.created ? settled(result.request) : read([result.request]));
      return result;
    },
    async get(id) {
      const r = await store.get(id);
      await read([r]);
      return r;
    },
    async getMany(ids) {
      const rows = await store.getMany(ids);
      await read(rows);
      return rows;
    },
    async getByIdempotencyKey(key, filedBy) {
      const r = await store.getByIdempotencyKey(key, filedBy);
      await read([r]);
      return r;
    },
    async decide(id, vote) {
      const result = await store.decide(id, vote);
      if (result.kind === 'final' || result.kind === 'expired') await settled(result.request);
      else if (result.kind === 'already_final') await read([result.request]);
      return result;
    },
    async finish(...args) {
      const r = await store.finish(...args);
      await settled(r);
      return r;
    },
    async list(query) {
      const page = await store.list(query);
      await read(page.items);
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
