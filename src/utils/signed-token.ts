/**
 * @module utils/signed-token
 * Small signed tokens that need no storage: a JSON array, base64url, and its HMAC-SHA256 under a key derived for one
 * component (`<payload>.<signature>`). The email channel's approval links and the push notifications' action tokens
 * are made this way, so a token of one can never pass as the other, and any replica holding the deployment secret
 * verifies what another signed.
 *
 * @remarks Left out: expiry and single use. The caller reads its own expiry field from the claims and spends a token
 * with a shared mark; a signature alone cannot be spent.
 */
import { createHmac } from 'node:crypto';
import { secretEquals } from './secure-compare.js';

/** Token payloads are short: a longer string is refused before any work. */
const MAX_TOKEN_CHARS = 1200;

/** Signs and opens tokens for one component (`label`), with one deployment secret. */
export class TokenSigner {
  private readonly key: Buffer;

  constructor(label: string, secret: string | Buffer) {
    // Derived, so the same deployment secret could never sign something another component would accept.
    this.key = createHmac('sha256', label).update(secret).digest();
  }

  /** The HMAC of `payload` for `purpose` (base64url). */
  mac(purpose: string, payload: string): string {
    return createHmac('sha256', this.key).update(`${purpose}|${payload}`).digest('base64url');
  }

  /** A token carrying `fields` for `purpose`. */
  sign(purpose: string, fields: readonly unknown[]): string {
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${payload}.${this.mac(purpose, payload)}`;
  }

  /** The fields of a token signed for `purpose`, or null when it is malformed, too long or not signed by this key. */
  open(purpose: string, token: unknown): unknown[] | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return null;
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || !secretEquals(signature, this.mac(purpose, payload)))
      return null;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
}
