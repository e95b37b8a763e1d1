/**
 * @module gateway/file
 * How the gateway files a request: check the callback target and the approvers, answer a repeated idempotency key with
 * its row, let the policy route or settle the request, write the row with its cards, arm its one timer, enqueue its
 * card deliveries and fan the change out. `Gateway.request` is the one caller.
 */
import type { Channel } from '../channel/channel.js';
import { callbackUrlProblem } from '../utils/outbound.js';
import type { Clock } from '../utils/clock.js';
import { ValidationError } from '../api/errors.js';
import { argsSha256 } from '../requests/args-hash.js';
import {
  newConfirmationRequest,
  sameArgsOrConflict,
  type GatewayDefaults,
  type NewRequestInput,
} from '../requests/new-request.js';
import { resolveCards } from '../channel/cards.js';
import { settleAtFiling } from '../policy/apply.js';
import type { PolicyGate, Ruling } from '../policy/gate.js';
import { nextWake } from '../policy/follow-ups.js';
import { bareUserIdProblem, unknownApprovers } from '../people/approvers.js';
import type { Delegations } from '../people/away.js';
import { delegateTargets, directTargets } from '../people/targets.js';
import type { Directory } from '../people/types.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { Scheduler } from '../scheduler/types.js';
import type { RequestTraces } from '../telemetry/tracing.js';
import { tracePolicy } from '../telemetry/request-spans.js';
import { summarize } from '../summaries/index.js';

/** Options of `Gateway.request`. */
export interface FileOptions {
  /**
   * The row the caller has just read under `input.idempotencyKey` (`null`: none), so it is not read twice (the hook
   * routes look the key up first). A row filed under the key since is still answered: the store's insert finds it.
   */
  underKey?: ConfirmationRequest | null;
}

/** What filing needs of the gateway (so this file does not import it). */
export interface FilingDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  clock: Clock;
  channels: ReadonlyMap<string, Channel>;
  defaults: GatewayDefaults;
  policy: PolicyGate | null;
  /** Hosts `callback_url` may name although they are loopback or private. */
  callbackAllow: string[];
  /** The people directory in force (reloads swap it). */
  directory(): Directory;
  /** The delegations in force (a read up to a second old serves: cards only). */
  delegations(): Promise<Delegations>;
  traces: RequestTraces;
  /** After the row is committed: wake waiters, tell observers and the feed. */
  created(request: ConfirmationRequest): Promise<void>;
  /** Whether a timer waking at `wake` can wait for a pass of the expiry horizon (`ExpiryHorizon.defers`); absent: never. */
  defers?(wake: Date, expiresAt: Date): boolean;
}

/** What filing answers: the row, and whether this call wrote it (`false`: an earlier one under the same key). */
export interface Filed {
  request: ConfirmationRequest;
  created: boolean;
}

/** Files `input`; see the module comment. */
export async function fileRequest(deps: FilingDeps, input: NewRequestInput, options: FileOptions): Promise<Filed> {
  const { store, scheduler, channels } = deps;
  const toolArgs = input.toolArgs ?? {};
  const callbackProblem = input.callbackUrl ? callbackUrlProblem(input.callbackUrl, deps.callbackAllow) : null;
  if (callbackProblem)
    throw new ValidationError(`callback_url: ${callbackProblem}`, [{ path: 'callback_url', message: callbackProblem }]);
  const unknown = unknownApprovers(deps.directory(), input.approvers ?? []);
  const ambiguous = bareUserIdProblem(deps.directory(), input.userId);
  if (ambiguous) unknown.push(ambiguous);
  if (unknown.length) throw new ValidationError(unknown.map((p) => `${p.path}: ${p.message}`).join('; '), unknown);
  const hash = argsSha256(input.toolName, toolArgs);
  if (input.idempotencyKey) {
    const existing =
      options.underKey !== undefined
        ? options.underKey
        : await store.getByIdempotencyKey(input.idempotencyKey, input.filedBy ?? null);
    if (existing) return { request: sameArgsOrConflict(existing, hash), created: false };
  }
  // What the call will do, worked out before the policy so rules can match its risk; never fails the request.
  const summary = await summarize(input.toolName, toolArgs, {
    cwd: input.context?.cwd,
    annotations: input.toolAnnotations,
  });
  input = { ...input, summary };
  const now = new Date(deps.clock.now());
  // The policy routes the request (its approvers, channels and quorum win) or settles it at once (allow/deny/grant).
  const policy = deps.policy;
  const ruling = policy ? await tracePolicy(() => policy.rulingFor(input, now)) : null;
  if (ruling?.settlement) return fileSettled(deps, ruling, hash, now);
  const filed = ruling?.input ?? input;
  // Unless the caller or the rule chose channels, people named as approvers get the card directly as well; whoever
  // stands in for an approver who is away gets it directly in any case.
  const directory = deps.directory();
  const targets = [
    ...(filed.channels ?? [...deps.defaults.channels, ...directTargets(directory, filed.approvers ?? [], channels)]),
    ...delegateTargets(directory, filed.approvers ?? [], channels, await deps.delegations()),
  ];
  const cards = resolveCards(targets, channels);
  const request = newConfirmationRequest(filed, deps.defaults, cards, hash, now);
  const inline = (type: string) => channels.get(type)?.readsFromDatabase === true;
  const result = await store.create(
    request,
    cards.map((c) => ({ channel: c.type, target: c.target ?? '', sent: inline(c.type) })),
    ruling ? { detail: ruling.detail } : undefined,
  );
  if (!result.created) return { request: sameArgsOrConflict(result.request, hash), created: false };
  deps.traces.remember(request.id);
  // The request's one timer fires at its first reminder or escalation step, if any comes before its expiry; one due
  // beyond the horizon is armed by a pass minutes before (100,000 filed for an hour hold no timer each meanwhile).
  const wake = nextWake(ruling?.followUps ?? [], request.expiresAt);
  if (!deps.defers?.(wake, request.expiresAt)) await scheduler.scheduleExpiry(request.id, wake, request.expiresAt);
  for (const card of cards)
    if (!inline(card.type)) await scheduler.enqueueDelivery(request.id, card.type, card.target ?? '');
  await deps.created(request);
  return result;
}

/** Writes a request its rule or a standing grant settled at filing: final at once, no cards, no timer. */
async function fileSettled(deps: FilingDeps, ruling: Ruling, hash: string, now: Date): Promise<Filed> {
  const settled = settleAtFiling(
    newConfirmationRequest(ruling.input, deps.defaults, [], hash, now),
    ruling.settlement!,
  );
  const result = await deps.store.create(settled.request, [], { detail: ruling.detail, events: [settled.event] });
  if (!result.created) return { request: sameArgsOrConflict(result.request, hash), created: false };
  await ruling.settled?.();
  await deps.created(result.request);
  if (result.request.callbackUrl) await deps.scheduler.enqueueCallback(result.request.id);
  return result;
}
