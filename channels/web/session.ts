/**
 * @module channels/web/session
 * Signed session cookies and CSRF tokens. A session is `user|session id|expiry` signed with HMAC-SHA256, so any
 * gateway replica sharing `TOLLGATE_WEB_SECRET` accepts it and nothing is stored per session. CSRF tokens are an
 * HMAC of the session id: they need no storage either, and a token from one session is worthless in another.
 * Visitors who are not signed in get a random pre-session id, so the login form carries a CSRF token too.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { secretEquals } from '../../src/secure-compare.js';
import type { SharedMarks } from '../../src/shared-marks.js';

/** The session cookie's name. */
export const SESSION_COOKIE = 'tollgate_session';
/** The pre-session cookie's name (CSRF for the login form). */
export const PRE_SESSION_COOKIE = 'tollgate_pre';

/** A verified session. */
export interface Session {
  user: string;
  id: string;
  expiresAt: number;
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
    /** Sign-outs shared with every replica (the database on PostgreSQL); this process only when absent. */
    private readonly signOuts?: SharedMarks,
  ) {
    this.key = createHmac('sha256', 'tollgate-web-session').update(secret).digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  /** A new session for `user`, with the cookie value that carries it. */
  issue(user: string): { session: Session; cookie: string } {
    const session: Session = { user, id: randomBytes(16).toString('base64url'), expiresAt: this.now() + this.ttlMs };
    const payload = Buffer.from(`${session.user}|${session.id}|${session.expiresAt}`).toString('base64url');
    return { session, cookie: `${payload}.${this.sign(payload)}` };
  }

  /** The session a cookie value carries; null when it is forged, expired or signed out. */
  verify(cookie: string | undefined): Session | null {
    if (!cookie) return null;
    const [payload, signature, extra] = cookie.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    if (!secretEquals(signature, this.sign(payload))) return null;
    const [user, id, expires] = Buffer.from(payload, 'base64url').toString('utf8').split('|');
    const expiresAt = Number(expires);
    if (!user || !id || !Number.isFinite(expiresAt) || expiresAt <= this.now() || this.revoked.has(id)) return null;
    return { user, id, expiresAt };
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

/** Parses a `Cookie` header into name → value (first occurrence wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (cookies.has(name)) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      // A malformed cookie is ignored, like a missing one.
    }
  }
  return cookies;
}

/** Options of {@link serializeCookie}. */
export interface CookieOptions {
  maxAgeS?: number;
  secure: boolean;
  path?: string;
}

/** A `Set-Cookie` value: always HttpOnly and SameSite=Lax, scoped to `/ui`. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? '/ui'}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeS !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeS))}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
