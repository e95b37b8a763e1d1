/**
 * @module policy/grant-decisions
 * Approving with a grant button: check that the request's rule offers that grant, then (once the approval is final)
 * write the grant and its `grant_created` event. The rule is the one recorded in the request's `created` event, so a
 * policy reload that drops or renames the rule stops new grants for requests filed under the old one.
 */
import { ValidationError } from '../api/errors.js';
import { uuidv7 } from '../requests/ids.js';
import type { ConfirmationEvent, ConfirmationRequest, NewEvent } from '../requests/types.js';
import type { PolicyGate } from './gate.js';
import { scopeOf, type NewGrant } from './grants.js';
import type { GrantOffer } from './types.js';

/** The grant button an approver chose, and the rule offering it. */
export interface ChosenGrant {
  rule: string;
  offer: GrantOffer;
}

/** The name of the rule that routed `request`, read from its `created` event (null when no policy applied). */
export function ruleOfRequest(events: readonly ConfirmationEvent[]): string | null {
  const created = events.find((e) => e.type === 'created');
  const policy = created?.detail.policy as { rule?: unknown } | undefined;
  return typeof policy?.rule === 'string' ? policy.rule : null;
}

/** The grants offered for a request (what cards show as extra buttons); empty when none. */
export function offeredGrants(gate: PolicyGate | null, events: readonly ConfirmationEvent[]): GrantOffer[] {
  if (!gate?.grants) return [];
  const name = ruleOfRequest(events);
  const rule = name ? gate.rule(name) : undefined;
  return Array.isArray(rule?.grants) ? rule.grants : [];
}

/**
 * The grant labelled `label` that the request's rule offers.
 * @throws ValidationError naming `grant` when the rule offers no such grant (or refuses grants: `grants: none`).
 */
export function chooseGrant(gate: PolicyGate | null, events: readonly ConfirmationEvent[], label: string): ChosenGrant {
  const name = ruleOfRequest(events);
  const rule = name ? gate?.rule(name) : undefined;
  const refuse = (message: string) => new ValidationError(`grant: ${message}`, [{ path: 'grant', message }]);
  if (!gate?.grants) throw refuse('standing grants are not available on this gateway');
  if (!name || !rule) throw refuse('this request was filed under no policy rule that offers grants');
  if (!Array.isArray(rule.grants))
    throw refuse(`rule "${name}" offers no grants${rule.grants === 'none' ? ' (grants: none)' : ''}`);
  const offer = rule.grants.find((g) => g.label === label);
  if (!offer)
    throw refuse(`rule "${name}" offers ${rule.grants.map((g) => `"${g.label}"`).join(', ')}, not "${label}"`);
  return { rule: name, offer };
}

/** The grant an approval with `chosen` gives, scoped to the request's values, and its `grant_created` event. */
export function grantFromApproval(
  request: ConfirmationRequest,
  chosen: ChosenGrant,
  actor: string,
  via: string,
  now: Date,
): { grant: NewGrant; event: NewEvent } {
  const grant: NewGrant = {
    id: uuidv7(now.getTime()),
    rule: chosen.rule,
    label: chosen.offer.label,
    scope: scopeOf(request, chosen.offer.scope),
    requestId: request.id,
    createdBy: actor,
    createdAt: now,
    expiresAt: new Date(now.getTime() + chosen.offer.ttl_s * 1000),
  };
  const event: NewEvent = {
    type: 'grant_created',
    actor,
    channel: via,
    detail: {
      grant: grant.id,
      label: grant.label,
      rule: grant.rule,
      scope: grant.scope,
      expires_at: grant.expiresAt.toISOString(),
    },
    at: now,
  };
  return { grant, event };
}
