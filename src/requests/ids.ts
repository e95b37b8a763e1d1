/**
 * @module requests/ids
 * Request ids are UUIDv7 (RFC 9562): time-ordered, so ids sort in creation order within a millisecond too, and the
 * audit query's "newest first" never depends on chance. 74 random bits keep them unguessable enough for ids
 * (the per-request nonce, not the id, is the secret a button carries).
 */
import { pooledRandomBytes } from '../utils/random-pool.js';

let lastMs = 0;
let sequence = 0;

/** A new UUIDv7 for the time `ms` (the gateway's clock). Monotonic within this process. */
export function uuidv7(ms: number = Date.now()): string {
  if (ms <= lastMs) {
    ms = lastMs;
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) ms = ++lastMs;
  } else {
    lastMs = ms;
    sequence = pooledRandomBytes(2).readUInt16BE() & 0x7ff;
  }
  const bytes = pooledRandomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
