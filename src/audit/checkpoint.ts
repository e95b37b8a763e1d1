/**
 * @module audit/checkpoint
 * Checks a prune checkpoint's signature with the gateway's keys (current and retired), the way `verifyAnchor` checks
 * an anchor: a checkpoint written by anyone without the verdict-signing key does not pass `audit verify`.
 */
import type { SigningKeys } from '../signing/keys.js';
import { verifyAnchor } from '../verify/index.js';
import type { CheckpointCheck } from './verify.js';

/** A {@link CheckpointCheck} against `keys`' JWKS. */
export function checkpointCheck(keys: SigningKeys): CheckpointCheck {
  return async (checkpoint) => {
    const result = await verifyAnchor({ event_id: checkpoint.eventId, hash: checkpoint.hash, at: checkpoint.at, signature: checkpoint.signature }, { keys: (await keys.jwks()).keys });
    return result.ok ? { ok: true } : { ok: false, message: result.message };
  };
}
