/**
 * @module push/service
 * What the push routes (the inbox's `/ui/push/…`, the API's `/v1/push/…`) do, transport-free: hand out the VAPID
 * public key, keep a person's subscriptions, and turn a notification's Approve into one decision through the gateway
 * (`responded_via: "push"`), so approver lists, four eyes, self-approval and the deadline hold as for any tap.
 */
import { randomUUID } from 'node:crypto';
import type { DecideOutcome, DecisionSink } from '../channel/channel.js';
import { ConflictError, ValidationError } from '../api/errors.js';
import type { ActionTokenProblem, ActionTokens } from './action-tokens.js';
import {
  endpointOf,
  parseSubscription,
  type PushSubscriptionRecord,
  type PushSubscriptionStore,
} from './subscriptions.js';
import type { VapidKeys } from './vapid.js';

/** What the service is built from. */
export interface PushServiceOptions {
  keys: VapidKeys;
  subscriptions: PushSubscriptionStore;
  tokens: ActionTokens;
  /** Hosts and ranges push endpoints may be on although private (`TOLLGATE_OUTBOUND_ALLOW`, utils/outbound). */
  outboundAllow: readonly string[];
  now: () => number;
}

/** The outcome of {@link PushService.act}: an HTTP status and the JSON to answer with. */
export interface ActResult {
  status: number;
  body: { ok: boolean; code?: string; status?: string; title: string; message: string };
}

const REFUSED: Record<ActionTokenProblem | 'unsubscribed', ActResult> = {
  forged: {
    status: 401,
    body: {
      ok: false,
      code: 'forged',
      title: 'Not accepted',
      message: 'This notification was not sent by this gateway.',
    },
  },
  expired: {
    status: 410,
    body: {
      ok: false,
      code: 'expired',
      title: 'Expired',
      message: 'This notification is too old to decide from. Open the request to decide.',
    },
  },
  used: {
    status: 409,
    body: {
      ok: false,
      code: 'used',
      title: 'Already used',
      message: 'This notification was already used. Nothing was changed.',
    },
  },
  unsubscribed: {
    status: 410,
    body: {
      ok: false,
      code: 'unsubscribed',
      title: 'Device unsubscribed',
      message: 'This device no longer gets notifications. Open the request to decide.',
    },
  },
};

/** Push subscriptions and notification actions. */
export class PushService {
  constructor(private readonly options: PushServiceOptions) {}

  /** The VAPID public key (base64url): the browser's `applicationServerKey`. */
  publicKey(): string {
    return this.options.keys.publicKey;
  }

  /**
   * Subscribes a device of `person`, deciding as `account`; throws a ValidationError naming the bad field, and a
   * ConflictError when another person holds the endpoint.
   */
  async subscribe(person: string, account: string, body: unknown): Promise<PushSubscriptionRecord> {
    const input = parseSubscription(body, this.options.outboundAllow);
    const saved = await this.options.subscriptions.save({
      id: randomUUID(),
      person,
      account,
      ...input,
      createdAt: new Date(this.options.now()),
    });
    // Another person's device: theirs stays theirs (nothing says whose it is).
    if (!saved) throw new ConflictError('endpoint: this push endpoint is subscribed by someone else');
    return saved;
  }

  /** Removes `person`'s subscription named by `{endpoint}`; false when they had none with it. */
  async unsubscribe(person: string, body: unknown): Promise<boolean> {
    return this.options.subscriptions.remove(endpointOf(body), person);
  }

  /**
   * Decides once from a notification: checks the token (genuine, unexpired, its device still subscribed by its
   * person), spends it, and hands the decision to the gateway as the device's account. A refused token changes nothing.
   */
  async act(gateway: DecisionSink, body: unknown): Promise<ActResult> {
    const { action_token: token, action } = (body && typeof body === 'object' ? body : {}) as {
      action_token?: unknown;
      action?: unknown;
    };
    if (action !== 'approve' && action !== 'deny')
      throw new ValidationError('action: expected approve or deny', [
        { path: 'action', message: 'expected approve or deny' },
      ]);
    if (typeof token !== 'string' || !token)
      throw new ValidationError('action_token: required', [{ path: 'action_token', message: 'required' }]);
    const now = this.options.now();
    const checked = this.options.tokens.verify(token, now);
    if (!checked.ok) return REFUSED[checked.problem];
    const { claims } = checked;
    const device = await this.options.subscriptions.get(claims.subscriptionId);
    if (!device || device.person !== claims.person) return REFUSED.unsubscribed;
    if (!(await this.options.tokens.spend(claims, now))) return REFUSED.used;
    const colon = device.account.indexOf(':');
    const outcome = await gateway.decide({
      requestId: claims.requestId,
      nonce: claims.nonce,
      decision: action,
      actor: { channel: device.account.slice(0, colon), userId: device.account.slice(colon + 1) },
      via: 'push',
    });
    return answer(outcome);
  }
}

function answer(outcome: DecideOutcome): ActResult {
  if (!outcome.ok)
    return {
      status:
        outcome.code === 'not_found'
          ? 404
          : outcome.code === 'not_authorized' || outcome.code === 'self_approval'
            ? 403
            : 409,
      body: { ok: false, code: outcome.code, title: 'Not decided', message: outcome.message },
    };
  const { request } = outcome;
  const title =
    request.status === 'pending'
      ? `Approval recorded: ${request.toolName}`
      : `${request.status === 'approved' ? 'Approved' : 'Denied'}: ${request.toolName}`;
  return {
    status: 200,
    body: {
      ok: true,
      status: request.status,
      title,
      message: outcome.final ? 'Decided from this device.' : 'Your approval counts; more are needed.',
    },
  };
}
