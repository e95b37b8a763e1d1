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
  /** Its place in the chain (null while pending). */
  seq: number | string | null;
}

/** A whole grant row as `audit verify` reads it, with the events naming it. */
export interface GrantAudit {
  grant: GrantFacts & { requestId: string; revoked: boolean };
  events: GrantEventRow[];
}

/** The event types the stores read for {@link witnessedGrants}. */
export const GRANT_EVENT_TYPES = ['grant_created', 'grant_revoked'] as const;

/** Why `grant` may not be acted on, given the events naming it, or null when it may. */
export function whyGrantUnwitnessed(grant: GrantFacts, events: readonly GrantEventRow[], keys: KeyRing): string | null {
  if (events.some((e) => e.type === 'grant_revoked')) return 'a grant_revoked event names it';
  return whyNotMade(grant, events, keys, 0);
}

/**
 * What `audit verify` says of a grant row (null: nothing): as {@link whyGrantUnwitnessed}, except that a revoked
 * grant is wrong only when its row no longer says so, and a `grant_created` event in the legacy part (integrated
 * before the fifth stage, `seq` up to `legacySize`, checked by the first chain's rules) needs no receipt.
 */
export function grantProblem(audit: GrantAudit, keys: KeyRing, legacySize: number): string | null {
  const { grant, events } = audit;
  if (events.some((e) => e.type === 'grant_revoked') && !grant.revoked)
    return 'a grant_revoked event names it, but its row is not revoked (the revocation was cleared)';
  return whyNotMade(grant, events, keys, legacySize);
}

function whyNotMade(grant: GrantFacts, events: readonly GrantEventRow[], keys: KeyRing, legacySize: number) {
  const created = events.filter((e) => e.type === 'grant_created');
  if (!created.length) return 'no grant_created event names it: it was written around tollgate';
  let why = '';
  for (const e of created) {
    const legacy = e.seq !== null && Number(e.seq) <= legacySize;
    why = (legacy ? null : whyUnwitnessed(e, keys)) ?? differences(grant, e);
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
  const named = byGrant(events);
  return grants.filter((g) => whyGrantUnwitnessed(g, named.get(g.id) ?? [], keys) === null);
}

/** Each grant of `grants` with the events of `events` naming it. */
export function grantAudits(grants: readonly GrantAudit['grant'][], events: readonly GrantEventRow[]): GrantAudit[] {
  const named = byGrant(events);
  return grants.map((grant) => ({ grant, events: named.get(grant.id) ?? [] }));
}

function byGrant(events: readonly GrantEventRow[]): Map<string, GrantEventRow[]> {
  const named = new Map<string, GrantEventRow[]>();
  for (const e of events) named.set(e.grantId, [...(named.get(e.grantId) ?? []), e]);
  return named;
}
