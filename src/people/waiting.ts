/**
 * @module people/waiting
 * What waits for one approver: pending requests whose approver list names them (by account, person or group) and that
 * they have not approved yet (a quorum request they already counted toward waits for others, not for them), and those
 * waiting for someone away whom they stand in for. What `tollgate pending` and `GET /v1/inbox` show.
 */
import type { RequestPage, RequestQuery } from '../requests/store.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import { approverSetOf, deciderOf } from './approvers.js';
import { NO_DELEGATIONS, type Delegations } from './away.js';
import { mayDecideAs } from './stand-ins.js';
import type { Directory } from './types.js';

/** The reads this needs (the gateway's). */
export interface WaitingReads {
  list(query: RequestQuery): Promise<RequestPage>;
  events(id: string): Promise<ConfirmationEvent[]>;
}

/** How many pending rows one call looks through at most: an inbox, not an export. */
const SCAN_LIMIT = 5000;

/**
 * Up to `limit` pending requests `account` may decide and has not approved, newest first. `vouchedGroups`: groups an
 * identity provider put the account's person in (see `deciderOf`).
 * @example await waitingFor(gateway, gateway.directory(), 'person:alice', 50)
 */
export async function waitingFor(
  reads: WaitingReads,
  directory: Directory,
  account: string,
  limit: number,
  vouchedGroups: readonly string[] = [],
  delegations: Delegations = NO_DELEGATIONS,
): Promise<ConfirmationRequest[]> {
  const decider = deciderOf(directory, account, vouchedGroups);
  const found: ConfirmationRequest[] = [];
  let cursor: string | undefined;
  let scanned = 0;
  do {
    const page = await reads.list({ status: 'pending', limit: 200, cursor });
    scanned += page.items.length;
    for (const request of page.items) {
      if (found.length >= limit) break;
      if (!mayDecideAs(directory, approverSetOf(directory, request.approvers), decider, delegations)) continue;
      // Only a quorum can have an approval already counted; one read of its events says whose.
      if (request.requiredApprovals > 1 && (await approvedBy(reads, request.id, directory)).has(decider.person))
        continue;
      found.push(request);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor && found.length < limit && scanned < SCAN_LIMIT);
  return found;
}

async function approvedBy(reads: WaitingReads, id: string, directory: Directory): Promise<Set<string>> {
  const people = new Set<string>();
  for (const event of await reads.events(id)) {
    if (event.type === 'approved')
      people.add(typeof event.detail.person === 'string' ? event.detail.person : directory.personOf(event.actor ?? ''));
  }
  return people;
}
