/**
 * @module utils/secure-compare
 * The one constant-time comparison of secrets (tokens, signatures, CSRF tokens, password hashes). Both sides are
 * hashed first, so neither their content nor their length shows in the time a comparison takes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string | Buffer) => createHash('sha256').update(value).digest();

/** Whether two secrets are equal, in time that depends on neither. */
export function secretEquals(a: string | Buffer, b: string | Buffer): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Whether `candidate`'s SHA-256 is one of `digests`, comparing against every one of them (no early exit). */
export function digestIn(candidate: string, digests: readonly Buffer[]): boolean {
  const hashed = digest(candidate);
  let found = false;
  for (const known of digests) found = timingSafeEqual(hashed, known) || found;
  return found;
}
