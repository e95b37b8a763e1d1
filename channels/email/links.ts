/**
 * @module channels/email/links
 * The approval links' tokens and the confirmation form's CSRF tokens. A link token is a small JSON payload (request,
 * nonce, recipient, action, expiry) and its HMAC-SHA256 under the deployment's `email_links` key, so every replica
 * (and a restarted one) verifies links any of them mailed, and nothing is stored per link. Editing any field (another
 * recipient, the other action, a later expiry) breaks the signature.
 *
 * @remarks Left out: single use. A signature cannot be spent; the route spends a link (see `used-links.ts`).
 */
import { createHmac } from 'node:crypto';
import { secretEquals } from '../../src/utils/secure-compare.js';

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

/** Token payloads are short: a longer string is refused before any work. */
const MAX_TOKEN_CHARS = 1200;

/** Signs and verifies link tokens and form tokens with one key. */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    // Derived, so the same deployment secret could never sign something another component would accept.
    this.key = createHmac('sha256', 'tollgate-email-links').update(secret).digest();
  }

  private mac(purpose: string, payload: string): string {
    return createHmac('sha256', this.key).update(`${purpose}|${payload}`).digest('base64url');
  }

  /** The token of a link: `<base64url payload>.<signature>`. */
  sign(claims: LinkClaims): string {
    const payload = Buffer.from(JSON.stringify([1, claims.requestId, claims.nonce, claims.recipient, claims.action === 'approve' ? 'a' : 'd', claims.expiresAt])).toString('base64url');
    return `${payload}.${this.mac('link', payload)}`;
  }

  /** The claims of a token, or why it is refused. A forged token is refused before its expiry is read. */
  verify(token: string, now: number): { ok: true; claims: LinkClaims } | { ok: false; problem: LinkProblem } {
    const forged = { ok: false, problem: 'forged' } as const;
    if (token.length > MAX_TOKEN_CHARS) return forged;
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || !secretEquals(signature, this.mac('link', payload))) return forged;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return forged;
    }
    if (!Array.isArray(parsed) || parsed[0] !== 1 || parsed.length !== 6) return forged;
    const [, requestId, nonce, recipient, action, expiresAt] = parsed as unknown[];
    if (typeof requestId !== 'string' || typeof nonce !== 'string' || typeof recipient !== 'string' || (action !== 'a' && action !== 'd') || typeof expiresAt !== 'number') return forged;
    if (now >= expiresAt) return { ok: false, problem: 'expired' };
    return { ok: true, claims: { requestId, nonce, recipient, action: action === 'a' ? 'approve' : 'deny', expiresAt } };
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
