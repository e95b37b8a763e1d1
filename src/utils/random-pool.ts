/**
 * @module utils/random-pool
 * Cryptographically strong random bytes for the create path (a request's UUIDv7 and its nonce), drawn from a pool
 * refilled 4 KB at a time. `crypto.randomBytes` per call cost ~6 % of a create's CPU (a fresh buffer and a trip into
 * the CSPRNG each time, two or three times per request); node's own `randomUUID` pools its entropy the same way. Each
 * byte is handed out once, and callers get their own copy.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** `size` random bytes from the CSPRNG, in a buffer the caller owns. */
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_SIZE / 8) return randomBytes(size);
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.allocUnsafe(size);
  pool.copy(bytes, 0, offset, offset + size);
  offset += size;
  return bytes;
}
