/**
 * @module events/cloud
 * Audit events as CloudEvents 1.0 (structured JSON): `type` `dev.tollgate.<request|grant>.<what>`, `id` the event's
 * id in this database (what a consumer deduplicates on: at-least-once means a retry may repeat one), `subject` the
 * request id, `data` the event and the request as the API shows them.
 */
import type { ConfirmationEvent, ConfirmationRequest, EventType } from '../requests/types.js';
import { toApiEvent, toApiRequest } from '../requests/serialize.js';
import type { AwayChange } from '../people/away-book.js';
import { awayJson } from '../people/json.js';

/** The audit event types the stream carries, and the CloudEvents type of each. */
export const STREAM_TYPES: Readonly<Partial<Record<EventType, string>>> = {
  created: 'dev.tollgate.request.created',
  approved: 'dev.tollgate.request.approved',
  denied: 'dev.tollgate.request.denied',
  expired: 'dev.tollgate.request.expired',
  cancelled: 'dev.tollgate.request.cancelled',
  reminded: 'dev.tollgate.request.reminded',
  escalated: 'dev.tollgate.request.escalated',
  executed: 'dev.tollgate.request.executed',
  grant_created: 'dev.tollgate.grant.created',
  grant_revoked: 'dev.tollgate.grant.revoked',
};

/** The CloudEvents type of a change of someone's away status (not a request's event: see {@link awayCloudEvent}). */
export const AWAY_CHANGED_TYPE = 'dev.tollgate.person.away_changed';

/**
 * The structured CloudEvent of a change of someone's away status (`people_away`): `id` `away_<row id>` (its own
 * sequence beside the request events'), `subject` the person.
 */
export function awayCloudEvent(change: AwayChange, source: string) {
  return {
    specversion: '1.0' as const,
    id: `away_${change.id}`,
    source,
    type: AWAY_CHANGED_TYPE,
    subject: change.person,
    time: change.at.toISOString(),
    datacontenttype: 'application/json',
    data: {
      person: change.person,
      away: awayJson(change.away),
      set_by: change.setBy,
    },
  };
}

/** The audit event types the stream reads. */
export const STREAMED: readonly EventType[] = Object.keys(STREAM_TYPES) as EventType[];

/**
 * The CloudEvents type of `event`. An `approved` event that only counts toward a quorum (`approvals < required`) is
 * `dev.tollgate.request.approval_counted`: `…request.approved` always means the request is approved.
 */
export function cloudType(event: ConfirmationEvent): string {
  const { approvals, required } = event.detail as { approvals?: number; required?: number };
  if (event.type === 'approved' && approvals !== undefined && required !== undefined && approvals < required)
    return 'dev.tollgate.request.approval_counted';
  return STREAM_TYPES[event.type] ?? `dev.tollgate.request.${event.type}`;
}

/** The structured CloudEvent of `event` (its request as it is now in `data.request`). */
export function toCloudEvent(event: ConfirmationEvent, request: ConfirmationRequest | null, source: string) {
  return {
    specversion: '1.0' as const,
    id: `evt_${event.id}`,
    source,
    type: cloudType(event),
    subject: event.requestId,
    time: event.at.toISOString(),
    datacontenttype: 'application/json',
    data: { event: toApiEvent(event), request: request && toApiRequest(request) },
  };
}
