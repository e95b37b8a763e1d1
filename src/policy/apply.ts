/**
 * @module policy/apply
 * What a matched rule does to a request being filed. `ask` merges the rule into the request so that the request can
 * tighten it but never loosen it; `allow` and `deny` (and a standing grant) turn the new row into a final one with
 * its verdict event, written in the same transaction as the row so auditors see every gated call.
 */
import type { NewRequestInput } from '../requests/new-request.js';
import type { ConfirmationRequest, NewEvent } from '../requests/types.js';
import type { DefaultRule, PolicyRule } from './types.js';

/**
 * The request as `rule` routes it: the rule's approvers, channels and quorum win; the quorum is the larger and the
 * timeout the shorter of the two; `on_timeout: approve` holds only when neither side says `deny`.
 */
export function routeByRule(rule: PolicyRule | DefaultRule, input: NewRequestInput): NewRequestInput {
  const routed: NewRequestInput = { ...input };
  if (rule.approvers) routed.approvers = rule.approvers;
  if (rule.channels) routed.channels = rule.channels;
  if (rule.required_approvals !== undefined)
    routed.requiredApprovals = Math.max(rule.required_approvals, input.requiredApprovals ?? 1);
  if (rule.timeout_s !== undefined)
    routed.timeoutS = input.timeoutS === undefined ? rule.timeout_s : Math.min(rule.timeout_s, input.timeoutS);
  if (rule.on_timeout === 'deny' || input.onTimeout === 'deny') routed.onTimeout = 'deny';
  else if (rule.on_timeout === 'approve') routed.onTimeout = 'approve';
  return routed;
}

/** The `created` event's detail for a request a rule decided or routed. */
export function policyDetail(rule: PolicyRule | DefaultRule): Record<string, unknown> {
  return { policy: { rule: rule.name, decision: rule.decision ?? 'ask' } };
}

/** Who settled a request filed final: a rule (`policy:<name>`) or a standing grant (`grant:<id>`). */
export interface Settlement {
  decision: 'approve' | 'deny';
  /** `policy:<name>` or `grant:<id>`: the row's `responded_by` and the event's actor. */
  actor: string;
  /** `policy` or `grant`: the row's `responded_via` and the event's channel. */
  via: 'policy' | 'grant';
  reason: string | null;
  /** Extra event detail (the rule, the grant id). */
  detail: Record<string, unknown>;
}

/** `request` (new, pending) made final by `settlement`, and the verdict event to write with it. */
export function settleAtFiling(
  request: ConfirmationRequest,
  settlement: Settlement,
): { request: ConfirmationRequest; event: NewEvent } {
  const approve = settlement.decision === 'approve';
  const option = (approve ? request.options[0] : request.options[1]) ?? null;
  const settled: ConfirmationRequest = {
    ...request,
    status: approve ? 'approved' : 'denied',
    allowed: approve,
    respondedAt: request.createdAt,
    respondedBy: settlement.actor,
    respondedVia: settlement.via,
    decisionOption: option,
    reason: settlement.reason,
    // Nobody can tap a final request, and a quorum is meaningless for a rule's verdict.
    requiredApprovals: 1,
  };
  const event: NewEvent = {
    type: approve ? 'approved' : 'denied',
    actor: settlement.actor,
    channel: settlement.via,
    detail: { option, reason: settlement.reason, ...settlement.detail },
    at: request.createdAt,
  };
  return { request: settled, event };
}
