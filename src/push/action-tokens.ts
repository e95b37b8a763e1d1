/**
 * @module push/action-tokens
 * The token a push notification's Approve button carries. It names the request, the request's nonce, the person, the
 * device (subscription) and an expiry, signed (HMAC, `utils/signed-token.ts`, as email links are) with the
 * deployment's `push_actions` secret, so any replica accepts what another pushed. Single use: the first accepted use
 * takes a shared mark (`push_action`, in the database on both dialects), so a replayed token changes nothing.
 *
 * @remarks Left out: the decision itself (the route hands it to `gateway.decide`, which checks approvers, four eyes,
 * self-approval and the deadline as for any tap) and the action: one token serves both buttons, the action is posted
 * beside it.
 */
import { TokenSigner } from '../utils/signed-token.js';
import type { SharedMarks } from '../contracts/shared-marks.js';

/** How long an action token lives at most: a notification left on a lock screen longer opens the request page. */
export const ACTION_TOKEN_TTL_MS = 15 * 60_000;

/** What an action token stands for. */
export interface ActionClaims {
  requestId: string;
  nonce: string;
  person: string;
  subscriptionId: string;
  /** Epoch ms after which the token is refused. */
  expiresAt: number;
}

/** Why a token was refused. */
export type ActionTokenProblem = 'forged' | 'expired' | 'used';

/** Signs, checks and spends action tokens. */
export class ActionTokens {
  private readonly signer: TokenSigner;

  constructor(
    secret: string,
    private readonly marks: SharedMarks,
  ) {
    this.signer = new TokenSigner('tollgate-push-actions', secret);
  }

  /** A token for `claims`. */
  sign(claims: ActionClaims): string {
    return this.signer.sign('push', [
      1,
      claims.requestId,
      claims.nonce,
      claims.person,
      claims.subscriptionId,
      claims.expiresAt,
    ]);
  }

  /** The claims of `token` if it is genuine and unexpired at `now` (not yet spent: see {@link spend}). */
  verify(token: unknown, now: number): { ok: true; claims: ActionClaims } | { ok: false; problem: ActionTokenProblem } {
    const fields = this.signer.open('push', token);
    if (!fields || fields[0] !== 1 || fields.length !== 6) return { ok: false, problem: 'forged' };
    const [, requestId, nonce, person, subscriptionId, expiresAt] = fields;
    if (
      typeof requestId !== 'string' ||
      typeof nonce !== 'string' ||
      typeof person !== 'string' ||
      typeof subscriptionId !== 'string' ||
      typeof expiresAt !== 'number'
    )
      return { ok: false, problem: 'forged' };
    if (now >= expiresAt) return { ok: false, problem: 'expired' };
    return { ok: true, claims: { requestId, nonce, person, subscriptionId, expiresAt } };
  }

  /** Spends the token of `claims`: true for exactly one caller, on every replica. */
  async spend(claims: ActionClaims, now: number): Promise<boolean> {
    // The mark outlives the token (at least a second), so a use at the last moment cannot be replayed after it.
    return this.marks.add(
      'push_action',
      `${claims.requestId}|${claims.subscriptionId}|${claims.expiresAt}`,
      new Date(Math.max(claims.expiresAt, now) + 1000),
    );
  }
}
