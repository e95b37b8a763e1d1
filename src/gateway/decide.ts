/**
 * @module gateway/decide
 * How the gateway applies a decision from any channel: check who decides and whether they may, record the vote (the
 * store settles the request when it is the last one needed), give the standing grant a grant button asked for, and
 * fan the change out. The account is resolved to its person here, once (and the request's approvers to people), so
 * the allowlist, self-approval and the quorum count people, not accounts. Membership is the directory's in force, read
 * here at every decision (groups an identity provider vouched for count only while fresh), and an approval that would
 * complete a quorum first re-checks the earlier approvers: one who is no longer an approver does not count (the store
 * records who and why in the event). A decision that arrives after the deadline is refused, and the store expires the
 * row in the same transaction. A decider who is not an approver in their own right may decide as the delegate of one
 * who is away (`people/away.ts`): the vote is theirs (`person`, counted once in a quorum) and names the absentee
 * (`on_behalf_of`); an absentee who filed the request lends nobody a say on it. A refusal is recorded as a
 * `decision_rejected` event and returned, never thrown; only a grant the request cannot give throws (a 400 naming
 * `grant`, nothing recorded). `Gateway.decide` is the one caller.
 */
import type { Logger } from 'pino';
import {
  REJECTION_MESSAGES,
  STALE_GROUPS_MESSAGE,
  type DecideOutcome,
  type DecisionEvent,
  type DecisionRejection,
} from '../channel/channel.js';
import type { Clock } from '../utils/clock.js';
import { ValidationError } from '../api/errors.js';
import type { PolicyGate } from '../policy/gate.js';
import { chooseGrant, grantFromApproval, type ChosenGrant } from '../policy/grant-decisions.js';
import {
  approverSetOf,
  deciderOf,
  discountedVoters,
  isListed,
  requesterPeople,
  type ApproverSet,
  type Decider,
} from '../people/approvers.js';
import type { Directory } from '../people/types.js';
import type { Delegations } from '../people/away.js';
import { standingInFor } from '../people/stand-ins.js';
import { checkDecision } from '../people/decision-checks.js';
import type { ConfirmationStore, Vote } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';

/** What applying a decision needs of the gateway (so this file does not import it). */
export interface DecisionDeps {
  store: ConfirmationStore;
  clock: Clock;
  logger: Logger;
  policy: PolicyGate | null;
  allowSelfApproval: boolean;
  /** The people directory in force (reloads swap it). */
  directory(): Directory;
  /** The delegations in force, read fresh (a window ended on another replica no longer lends a say). */
  delegations(): Promise<Delegations>;
  /** After a committed vote: wake waiters, refresh cards, call back. */
  changed(request: ConfirmationRequest): Promise<void>;
}

/** Applies `event` to its request; see the module comment. */
export async function applyDecision(deps: DecisionDeps, event: DecisionEvent): Promise<DecideOutcome> {
  const { store, clock } = deps;
  const actor = `${event.actor.channel}:${event.actor.userId}`;
  const via = event.via ?? event.actor.channel;
  const request = await store.get(event.requestId);
  if (!request) return { ok: false, code: 'not_found', message: REJECTION_MESSAGES.not_found };
  const reject = async (code: DecisionRejection, message = REJECTION_MESSAGES[code]): Promise<DecideOutcome> => {
    await store.appendEvent(request.id, {
      type: 'decision_rejected',
      actor,
      channel: via,
      detail: { code, decision: event.decision, message, ...(event.token ? { token: event.token.name } : {}) },
      at: new Date(clock.now()),
    });
    deps.logger.warn({ requestId: request.id, actor, code }, 'decision rejected');
    return { ok: false, code, message, request: (await store.get(request.id)) ?? request };
  };
  const directory = deps.directory();
  const decider = deciderOf(directory, actor, event.groups);
  const approvers = approverSetOf(directory, request.approvers);
  const requesters = requesterPeople(directory, request);
  // Read the delegations only where they matter: a decider not listed in their own right, or a quorum whose earlier
  // votes may have been cast for an absentee.
  const quorum = event.decision === 'approve' && request.requiredApprovals > 1;
  const delegations = quorum || !isListed(approvers, decider) ? await deps.delegations() : null;
  const onBehalfOf =
    delegations && !isListed(approvers, decider)
      ? standingInFor(directory, delegations, approvers, decider.person, requesters)
      : null;
  const people = { decider, approvers, requesters, onBehalfOf };
  const problem = checkDecision(request, event, people, deps.allowSelfApproval);
  if (problem)
    return reject(
      problem.code,
      problem.code === 'not_authorized' && onlyStaleGroupsAdmit(directory, people.approvers, actor, event)
        ? STALE_GROUPS_MESSAGE
        : problem.message,
    );
  // A grant button: the request's rule must offer it (400 naming `grant` otherwise, nothing recorded).
  if (event.grant && event.decision !== 'approve')
    throw new ValidationError('grant: only an approval can give a grant', [
      { path: 'grant', message: 'only with decision "approve"' },
    ]);
  const grant = event.grant ? chooseGrant(deps.policy, await store.events(request.id), event.grant) : null;

  const option = event.option ?? (event.decision === 'approve' ? request.options[0] : request.options[1]) ?? null;
  const at = new Date(clock.now());
  // An approval towards a quorum: whoever approved before and is no longer an approver does not count (the store
  // counts under its lock; a vote landing between this read and that lock was checked at its own decision just now).
  const discounted = quorum
    ? discountedVoters(
        directory,
        people.approvers,
        await store.events(request.id),
        decider.person,
        at,
        delegations ?? undefined,
      )
    : [];
  const result = await store.decide(request.id, {
    decision: event.decision,
    actor,
    person: decider.person,
    ...(onBehalfOf ? { onBehalfOf } : {}),
    via,
    token: event.token?.name ?? null,
    reason: event.reason ?? null,
    option,
    approvedArgs: event.approvedArgs ?? null,
    at,
    ...(discounted.length ? { discounted } : {}),
    ...(quorum ? { vouched: vouchedFor(directory, people.approvers, decider, event, at) } : {}),
  });
  switch (result.kind) {
    case 'not_found':
      return { ok: false, code: 'not_found', message: REJECTION_MESSAGES.not_found };
    case 'already_final':
      return reject('already_decided', `This request was already ${result.request.status}.`);
    case 'expired':
      await deps.changed(result.request);
      return reject(
        'already_decided',
        `This request expired at ${result.request.expiresAt.toISOString()}, before this decision arrived.`,
      );
    case 'duplicate':
      // The same account twice is a repeated tap; another account of a person already counted is a walk-around of
      // four eyes, refused on the record.
      if (result.priorActor !== actor) {
        return reject(
          'duplicate_approval',
          `${decider.person} approved this request already (as ${result.priorActor}); a second account of the same person does not count.`,
        );
      }
      return {
        ok: false,
        code: 'duplicate_approval',
        message: REJECTION_MESSAGES.duplicate_approval,
        request: result.request,
      };
    case 'recorded':
      await deps.changed(result.request);
      return { ok: true, request: result.request, final: false };
    case 'final':
      if (grant && result.request.status === 'approved') await giveGrant(deps, result.request, grant, actor, via);
      await deps.changed(result.request);
      return { ok: true, request: result.request, final: true };
  }
}

/** Writes the standing grant an approval gave, and its `grant_created` event on the request. */
async function giveGrant(
  deps: DecisionDeps,
  request: ConfirmationRequest,
  chosen: ChosenGrant,
  actor: string,
  via: string,
): Promise<void> {
  const { grant, event } = grantFromApproval(request, chosen, actor, via, new Date(deps.clock.now()));
  await deps.policy!.grants!.create(grant);
  await deps.store.appendEvent(request.id, event);
}

/** Whether groups the provider vouched for too long ago are all that would have admitted the decider. */
function onlyStaleGroupsAdmit(
  directory: Directory,
  approvers: ApproverSet,
  actor: string,
  event: DecisionEvent,
): boolean {
  if (!event.staleGroups?.length) return false;
  return isListed(approvers, deciderOf(directory, actor, [...(event.groups ?? []), ...event.staleGroups]));
}

/**
 * The provider's groups this approval needs (the directory alone does not list the decider), and until when they
 * hold, for the event: a quorum completing later re-checks the approval with them (`discountedVoters`).
 */
function vouchedFor(
  directory: Directory,
  approvers: ApproverSet,
  decider: Decider,
  event: DecisionEvent,
  at: Date,
): Vote['vouched'] {
  if (!event.groups?.length || isListed(approvers, deciderOf(directory, decider.account))) return null;
  return {
    groups: decider.groups.filter((g) => !directory.groupsOf(decider.person).includes(g)),
    until: event.groupsUntil ?? at,
  };
}
