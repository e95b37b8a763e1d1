/**
 * @module audit/witnessed-grants
 * A standing grant approves calls by itself (`responded_by: "grant:<id>"`, a verdict token minted at filing), so a
 * row in `grants` is acted on only when the gateway witnessed its making (docs/audit.md, "The proof"): a
 * `grant_created` event on its request names it, is covered by a receipt of this gateway's keys (`read-back.ts`),
 * and says what the row says — rule, label, scope, expiry and who gave it. A grant a `grant_revoked` event names is
 * revoked, whatever its row says. Without this, one `INSERT INTO grants` (or an expiry pushed out, or a revocation
 * cleared) by a database writer approved every matching call.
 */
import { canonicalJson } from '../requests/args-hash.js';
import { whyUnwitnessed, type WitnessedRow } from './read-back.js';
import type { KeyRing } from './witness.js';

/** What a grant row says that its `grant_created` event must say too. */
export interface GrantFacts {
  id: string;
  rule: string;
  label: string;
  scope: Record<string, unknown>;
  createdBy: string;
  expiresAt: Date;
}

/** A `grant_created` or `grant_revoked` event naming grant `grantId`, read back with its receipt. */
export interface GrantEventRow extends WitnessedRow {
  grantId: string;
}

/** The event types the stores read for {@link witnessedGrants}. */
export const GRANT_EVENT_TYPES = ['grant_created', 'grant_revoked'] as const;

/** Why `grant` may not be acted on, given the events naming it, or null when it may. */
export function whyGrantUnwitnessed(grant: GrantFacts, events: readonly GrantEventRow[], keys: KeyRing): string | null {
  if (events.some((e) => e.type === 'grant_revoked')) return 'a grant_revoked event names it';
  const created = events.filter((e) => e.type === 'grant_created');
  if (!created.length) return 'no grant_created event names it: it was written around tollgate';
  let why = '';
  for (const e of created) {
    why = whyUnwitnessed(e, keys) ?? differences(grant, e);
    if (!why) return null;
  }
  return `its grant_created event: ${why}`;
}

/** The fields in which the row differs from its event ('' when none). */
function differences(grant: GrantFacts, e: GrantEventRow): string {
  let d: Record<string, unknown>;
  try {
    d = JSON.parse(e.detail) as Record<string, unknown>;
  } catch {
    return 'has no readable detail';
  }
  const changed = [
    d.rule !== grant.rule && 'rule',
    d.label !== grant.label && 'label',
    canonicalJson(d.scope ?? null) !== canonicalJson(grant.scope) && 'scope',
    d.expires_at !== grant.expiresAt.toISOString() && 'expires_at',
    e.actor !== grant.createdBy && 'created_by',
  ].filter(Boolean);
  return changed.length ? `the row's ${changed.join(', ')} differ from it (the row was edited)` : '';
}

/** The grants of `grants` that may be acted on, in order; see the module comment. */
export function witnessedGrants<G extends GrantFacts>(
  grants: readonly G[],
  events: readonly GrantEventRow[],
  keys: KeyRing,
): G[] {
  const byGrant = new Map<string, GrantEventRow[]>();
  for (const e of events) byGrant.set(e.grantId, [...(byGrant.get(e.grantId) ?? []), e]);
  return grants.filter((g) => whyGrantUnwitnessed(g, byGrant.get(g.id) ?? [], keys) === null);
}
