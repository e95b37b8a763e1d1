/**
 * @module channels/email/links
 * The approval links' tokens and the confirmation form's CSRF tokens. A link token is a small JSON payload (request,
 * nonce, recipient, action, expiry) and its HMAC-SHA256 under the deployment's `email_links` key, so every replica
 * (and a restarted one) verifies links any of them mailed, and nothing is stored per link. Editing any field (another
 * recipient, the other action, a later expiry) breaks the signature.
 *
 * @remarks Left out: single use. A signature cannot be spent; the route spends a link (see `used-links.ts`).
 */
import { secretEquals } from '../../src/utils/secure-compare.js';
import { TokenSigner } from '../../src/utils/signed-token.js';

/** What a link stands for. */
export interface LinkClaims {
  requestId: string;
  nonce: string;
  /** The recipient's address, lower case: the decision is recorded as `email:<address>`. */
  recipient: string;
  action: 'approve' | 'deny';
  /** Epoch ms after which the link is refused (the request's expiry). */
  expiresAt: number;
}

/** Why a token was refused. */
export type LinkProblem = 'forged' | 'expired';

/** Signs and verifies link tokens and form tokens with one key. */
export class LinkSigner {
  private readonly signer: TokenSigner;

  constructor(secret: string | Buffer) {
    this.signer = new TokenSigner('tollgate-email-links', secret);
  }

  private mac(purpose: string, payload: string): string {
    return this.signer.mac(purpose, payload);
  }

  /** The token of a link: `<base64url payload>.<signature>`. */
  sign(claims: LinkClaims): string {
    return this.signer.sign('link', [
      1,
      claims.requestId,
      claims.nonce,
      claims.recipient,
      claims.action === 'approve' ? 'a' : 'd',
      claims.expiresAt,
    ]);
  }

  /** The claims of a token, or why it is refused. A forged token is refused before its expiry is read. */
  verify(token: string, now: number): { ok: true; claims: LinkClaims } | { ok: false; problem: LinkProblem } {
    const forged = { ok: false, problem: 'forged' } as const;
    const parsed = this.signer.open('link', token);
    if (!parsed || parsed[0] !== 1 || parsed.length !== 6) return forged;
    const [, requestId, nonce, recipient, action, expiresAt] = parsed;
    if (
      typeof requestId !== 'string' ||
      typeof nonce !== 'string' ||
      typeof recipient !== 'string' ||
      (action !== 'a' && action !== 'd') ||
      typeof expiresAt !== 'number'
    )
      return forged;
    if (now >= expiresAt) return { ok: false, problem: 'expired' };
    return {
      ok: true,
      claims: { requestId, nonce, recipient, action: action === 'a' ? 'approve' : 'deny', expiresAt },
    };
  }

  /** The CSRF token of a confirmation form: bound to the browser's form cookie and to the link it confirms. */
  csrfToken(cookie: string, token: string): string {
    return this.mac('csrf', `${cookie}|${token}`);
  }

  /** Whether `candidate` is the CSRF token of this cookie and link, compared in constant time. */
  csrfMatches(cookie: string | undefined, token: string, candidate: unknown): boolean {
    if (!cookie || typeof candidate !== 'string' || !candidate) return false;
    return secretEquals(candidate, this.csrfToken(cookie, token));
  }
}
