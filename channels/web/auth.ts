/**
 * @module channels/web/auth
 * Who may use the web inbox: named users from the configuration (an scrypt password hash or a per-user token) and
 * one-time login links printed at start (as notebook servers do). Secrets are compared in constant time; an unknown
 * name costs as much time as a wrong password, so names cannot be probed.
 */
import { ValidationError } from '../../src/api/errors.js';
import { createHash, randomBytes, scrypt } from 'node:crypto';
import { secretEquals } from '../../src/utils/secure-compare.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A named web user. Give a password hash, a token, or both. */
export interface WebUser {
  /** The name in the approver id `web:<name>`. */
  name: string;
  /** `scrypt$N$r$p$<salt base64>$<hash base64>`, made by {@link hashPassword}. */
  passwordHash?: string;
  /** A per-user secret (read from the environment, never from the YAML file). */
  token?: string;
}

/** Names that are safe in approver ids, cookies and URLs. */
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const KEY_LENGTH = 64;

function scryptAsync(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

const DEFAULT_COST = 16384;

const formatHash = (cost: number, salt: Buffer, key: Buffer) =>
  `scrypt$${cost}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;

/**
 * Hashes a password for the `web.users[].password_hash` setting.
 * @example await hashPassword('correct horse') // 'scrypt$16384$8$1$…$…'
 */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  return formatHash(cost, salt, await scryptAsync(password, salt, cost, 8, 1));
}

/**
 * A hash no password matches, with the parameters {@link hashPassword} uses: checking a password against it costs what
 * checking against a real hash does. Its key is random rather than derived, which no check can tell apart, so making
 * one costs no scrypt run (about 35 ms of CPU at every start, when it was hashed).
 */
function decoyHash(): string {
  return formatHash(DEFAULT_COST, randomBytes(16), randomBytes(KEY_LENGTH));
}

/** Parses a password hash; null when it is not in the `scrypt$N$r$p$salt$hash` form. */
export function parsePasswordHash(hash: string): { n: number; r: number; p: number; salt: Buffer; key: Buffer } | null {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(hash);
  if (!match) return null;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // N must be a power of two above 1; bounds keep a hostile config from exhausting memory.
  if (n < 2 || n > 2 ** 20 || (n & (n - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  const key = Buffer.from(match[5]!, 'base64');
  if (key.length < 16) return null;
  return { n, r, p, salt: Buffer.from(match[4]!, 'base64'), key };
}

/** Checks `password` against an scrypt hash in constant time. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parsePasswordHash(hash);
  if (!parsed) return false;
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password,
      parsed.salt,
      parsed.key.length,
      { N: parsed.n, r: parsed.r, p: parsed.p, maxmem: 256 * parsed.n * parsed.r + 1024 * 1024 },
      (e, k) => (e ? reject(e) : resolve(k)),
    ),
  );
  return secretEquals(key, parsed.key);
}

/** A login link was asked for a name that is neither a configured web user nor the login-link user. */
export class UnknownWebUserError extends ValidationError {
  constructor(readonly user: string) {
    super(`user: "${user}" is not a web user; name one of web.users or the login-link user`, [
      { path: 'user', message: 'not a configured web user or the login-link user' },
    ]);
  }
}

/** Options of {@link WebAuth}. */
export interface WebAuthOptions {
  users: readonly WebUser[];
  /** Whether one-time login links can be made (default true). */
  loginLinks?: boolean;
  /** The user a login link signs in as (default `admin`). */
  linkUser?: string;
  /** Unspent login links shared by every replica (the database on PostgreSQL); this process only when absent. */
  marks?: SharedMarks;
  now?: () => number;
}

/** How long a login link stays valid when links are shared through the database (in memory: until the process ends). */
const SHARED_LINK_TTL_MS = 24 * 3_600_000;

/** Credentials checks and one-time login tokens (in this process's memory, or shared through `marks`). */
export class WebAuth {
  private readonly users: Map<string, WebUser>;
  private readonly loginTokens = new Set<string>();
  readonly loginLinks: boolean;
  readonly linkUser: string;
  /** Spent on unknown names so that they take as long as a wrong password. */
  private readonly decoyHash = decoyHash();
  private readonly marks: SharedMarks | undefined;
  private readonly now: () => number;

  constructor(options: WebAuthOptions) {
    this.users = new Map(options.users.map((u) => [u.name, u]));
    this.loginLinks = options.loginLinks ?? true;
    this.linkUser = options.linkUser ?? 'admin';
    this.marks = options.marks;
    this.now = options.now ?? Date.now;
  }

  /** Whether any named users are configured (else only login links get in). */
  get hasUsers(): boolean {
    return this.users.size > 0;
  }

  /** True when `name` may hold a session: a configured user, or the login-link user. */
  knows(name: string): boolean {
    return this.users.has(name) || (this.loginLinks && name === this.linkUser);
  }

  /**
   * Makes a new one-time login token that signs in as `user` (default: the login-link user); null when login links
   * are off. Only a configured user or the login-link user may be named: a link never creates an identity. With
   * shared marks it resolves once the link is stored, so a link shown to anyone already works on every replica.
   */
  async mintLoginToken(user: string = this.linkUser): Promise<string | null> {
    if (!this.loginLinks) return null;
    if (!this.knows(user)) throw new UnknownWebUserError(user);
    // The user rides in the token itself and the whole token is hashed: changing the name changes the key, so a
    // link for one user cannot be edited into a link for another, and replicas need no table of who a link is for.
    const token = `${randomBytes(24).toString('base64url')}.${Buffer.from(user).toString('base64url')}`;
    // Only the hash is kept: a heap dump (or a database dump) does not hand out logins.
    const key = sha256(token).toString('hex');
    if (this.marks) await this.marks.add('login_link', key, new Date(this.now() + SHARED_LINK_TTL_MS));
    else this.loginTokens.add(key);
    return token;
  }

  /**
   * Spends a login token; returns the user it signs in as, or null when it is unknown or already used. With shared
   * marks, exactly one replica spends it, whichever printed it.
   */
  async consumeLoginToken(token: string): Promise<string | null> {
    const key = sha256(token).toString('hex');
    const named = token.includes('.')
      ? Buffer.from(token.slice(token.indexOf('.') + 1), 'base64url').toString()
      : this.linkUser;
    // A user removed from the configuration since the link was made does not get in.
    const user = this.knows(named) ? named : null;
    if (!this.marks) return this.loginTokens.delete(key) ? user : null;
    return (await this.marks.take('login_link', key, new Date(this.now()))) ? user : null;
  }

  /** Checks a name and a password or token; returns the user name when they match. */
  async check(name: string, secret: string): Promise<string | null> {
    const user = this.users.get(name);
    if (!user || !secret) {
      await verifyPassword(secret, this.decoyHash);
      return null;
    }
    const tokenOk = user.token !== undefined && secretEquals(secret, user.token);
    // Token-only users still pay for one scrypt, so the response time does not tell which kind of user a name is.
    const passwordOk = await verifyPassword(secret, user.passwordHash ?? this.decoyHash);
    return tokenOk || (passwordOk && user.passwordHash !== undefined) ? user.name : null;
  }
}
