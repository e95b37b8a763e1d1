/**
 * @module channels/web/session
 * Signed session cookies and CSRF tokens. A session is `user|session id|expiry` signed with HMAC-SHA256, so any
 * gateway replica sharing `TOLLGATE_WEB_SECRET` accepts it and nothing is stored per session. CSRF tokens are an
 * HMAC of the session id: they need no storage either, and a token from one session is worthless in another. Only a
 * sign-out before the expiry is stored (in the database, `signOuts`): the key outlives a restart, so must the sign-out.
 * Visitors who are not signed in get a random pre-session id, so the login form carries a CSRF token too.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { secretEquals } from '../../src/utils/secure-compare.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';

/** The session cookie's name. */
export const SESSION_COOKIE = 'tollgate_session';
/** The pre-session cookie's name (CSRF for the login form). */
export const PRE_SESSION_COOKIE = 'tollgate_pre';

/** A verified session. */
export interface Session {
  user: string;
  id: string;
  expiresAt: number;
  /** What a sign-in through an OpenID provider learned (base64url JSON, see `oidc/identity.ts`); absent for local users. */
  data?: string;
}

/** Issues and verifies sessions and CSRF tokens. */
export class SessionSigner {
  private readonly key: Buffer;
  /** Sessions signed out before their expiry: id → expiry (pruned as they pass). */
  private readonly revoked = new Map<string, number>();

  constructor(
    secret: string | Buffer,
    /** How long a session lasts, in milliseconds. */
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** Sign-outs kept in the database (seen by every replica and after a restart); this process only when absent. */
    private readonly signOuts?: SharedMarks,
  ) {
    this.key = createHmac('sha256', 'tollgate-web-session').update(secret).digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  /** A new session for `user` (and what its sign-in learned, `data`: base64url only), with the cookie value that carries it. */
  issue(user: string, data?: string): { session: Session; cookie: string } {
    const session: Session = {
      user,
      id: randomBytes(16).toString('base64url'),
      expiresAt: this.now() + this.ttlMs,
      ...(data ? { data } : {}),
    };
    const fields = [session.user, session.id, session.expiresAt, ...(data ? [data] : [])];
    const payload = Buffer.from(fields.join('|')).toString('base64url');
    return { session, cookie: `${payload}.${this.sign(payload)}` };
  }

  /**
   * Signs a short-lived value for `purpose` (the OpenID sign-in's state, nonce and PKCE verifier): any replica can read
   * it back with {@link unseal} until `ttlMs` has passed, and nobody can forge or alter one.
   */
  seal(purpose: string, value: unknown, ttlMs: number): string {
    const payload = Buffer.from(JSON.stringify({ v: value, exp: this.now() + ttlMs })).toString('base64url');
    return `${payload}.${this.sign(`${purpose}|${payload}`)}`;
  }

  /** The value {@link seal} signed for `purpose`; null when it is forged, for another purpose, or expired. */
  unseal(purpose: string, sealed: string | undefined): unknown {
    const [payload, signature, extra] = (sealed ?? '').split('.');
    if (!payload || !signature || extra !== undefined || !secretEquals(signature, this.sign(`${purpose}|${payload}`)))
      return null;
    try {
      const { v, exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { v: unknown; exp: unknown };
      return typeof exp === 'number' && exp > this.now() ? v : null;
    } catch {
      return null;
    }
  }

  /** The session a cookie value carries; null when it is forged, expired or signed out. */
  verify(cookie: string | undefined): Session | null {
    if (!cookie) return null;
    const [payload, signature, extra] = cookie.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    if (!secretEquals(signature, this.sign(payload))) return null;
    const [user, id, expires, data, more] = Buffer.from(payload, 'base64url').toString('utf8').split('|');
    const expiresAt = Number(expires);
    if (
      !user ||
      !id ||
      more !== undefined ||
      !Number.isFinite(expiresAt) ||
      expiresAt <= this.now() ||
      this.revoked.has(id)
    )
      return null;
    return { user, id, expiresAt, ...(data ? { data } : {}) };
  }

  /** {@link verify}, then whether the session was signed out on any replica sharing the sign-outs. */
  async check(cookie: string | undefined): Promise<Session | null> {
    const session = this.verify(cookie);
    if (!session || !this.signOuts) return session;
    return (await this.signOuts.has('signed_out', session.id, new Date(this.now()))) ? null : session;
  }

  /** Signs a session out here and, with shared sign-outs, on every replica (its cookie is cleared on the browser too). */
  async revoke(session: Session): Promise<void> {
    const now = this.now();
    for (const [id, expiresAt] of this.revoked) if (expiresAt <= now) this.revoked.delete(id);
    this.revoked.set(session.id, session.expiresAt);
    await this.signOuts?.add('signed_out', session.id, new Date(session.expiresAt));
  }

  /** The CSRF token of a session (or pre-session) id. */
  csrfToken(sessionId: string): string {
    return this.sign(`csrf|${sessionId}`);
  }

  /** Whether `token` is the CSRF token of `sessionId`, compared in constant time. */
  csrfMatches(sessionId: string, token: unknown): boolean {
    if (typeof token !== 'string' || !token) return false;
    return secretEquals(token, this.csrfToken(sessionId));
  }
}
