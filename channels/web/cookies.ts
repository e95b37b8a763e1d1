/**
 * @module channels/web/cookies
 * Reading a `Cookie` header and writing a `Set-Cookie` value, for the pages tollgate serves itself (the web inbox, the
 * email channel's confirmation page). Every cookie is HttpOnly: no script of ours reads one.
 */

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
  /** `Lax` (default: the inbox is reached by links from chat) or `Strict` (a form that only posts to itself). */
  sameSite?: 'Lax' | 'Strict';
}

/** A `Set-Cookie` value: always HttpOnly, SameSite=Lax unless asked, scoped to `/ui` unless asked. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? '/ui'}`,
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Lax'}`,
  ];
  if (options.maxAgeS !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeS))}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
