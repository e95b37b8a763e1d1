/**
 * @module policy/grants
 * Standing grants: "approve for an hour" given by an approver, so the same rule, with the same values for the grant's
 * scope fields, approves later requests at once (`responded_by: "grant:<id>"`). The `GrantStore` contract is small so
 * that each database dialect can implement it in a few statements.
 *
 * @remarks Left out of the store: matching scope values (done here, in memory, over the few live grants of one rule)
 * and authorization (the HTTP routes check scopes; the gateway checks that the rule offers the grant).
 */

/** One standing grant (a row of `grants`). */
export interface Grant {
  id: string;
  /** The policy rule it belongs to; only requests that rule matches can use it. */
  rule: string;
  /** The button's label ("Approve for 1 hour"). */
  label: string;
  /** The scoped fields and the values a later request must have (`{"tool_name":"deploy","args.env":"staging"}`). */
  scope: Record<string, unknown>;
  /** The request whose approval created it (its timeline gets `grant_created` / `grant_revoked`). */
  requestId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedBy: string | null;
  /** How many requests it approved. */
  uses: number;
}

/** A grant about to be written. */
export type NewGrant = Omit<Grant, 'revokedAt' | 'revokedBy' | 'uses'>;

/** Where grants live. */
export interface GrantStore {
  create(grant: NewGrant): Promise<Grant>;
  get(id: string): Promise<Grant | null>;
  /** Grants of `rule` neither revoked nor expired at `now`, newest first. */
  active(rule: string, now: Date): Promise<Grant[]>;
  /** Adds one to `uses`. */
  recordUse(id: string): Promise<void>;
  /** Grants newest first; only live ones unless `all`. */
  list(query: { now: Date; all?: boolean; limit?: number }): Promise<Grant[]>;
  /** Revokes a live grant; null when there is no such grant, the grant unchanged when it was no longer live. */
  revoke(id: string, by: string, at: Date): Promise<{ grant: Grant; revoked: boolean } | null>;
}

/** What a scope field is read from: a request being filed, or a filed one. */
export interface ScopeSource {
  toolName: string;
  toolArgs?: Record<string, unknown>;
  agentId?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  metadata?: Record<string, unknown>;
}

/** The value of one scope field (`tool_name`, `agent_id`, `args.env`, `metadata.team`) in a request. */
export function scopeValue(input: ScopeSource, field: string): unknown {
  switch (field) {
    case 'tool_name':
      return input.toolName;
    case 'agent_id':
      return input.agentId ?? null;
    case 'user_id':
      return input.userId ?? null;
    case 'session_id':
      return input.sessionId ?? null;
  }
  const [root, ...path] = field.split('.');
  let value: unknown = root === 'args' ? input.toolArgs : input.metadata;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value ?? null;
}

/** The scope a grant given on `input` records: each field with the request's value. */
export function scopeOf(input: ScopeSource, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, scopeValue(input, f)]));
}

/** Whether `input` has, for every field of the grant's scope, the value the grant recorded. */
export function grantCovers(grant: Grant, input: ScopeSource): boolean {
  return Object.entries(grant.scope).every(
    ([field, value]) => JSON.stringify(scopeValue(input, field)) === JSON.stringify(value),
  );
}
