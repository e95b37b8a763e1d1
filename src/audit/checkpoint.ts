/**
 * @module audit/checkpoint
 * Checks a prune checkpoint's signature with the gateway's keys (current and retired), the way `verifyAnchor` checks
 * an anchor: a checkpoint written by anyone without the verdict-signing key does not pass `audit verify`.
 */
import type { SigningKeys } from '../signing/keys.js';
import type { CheckpointCheck } from './verify.js';

/** A {@link CheckpointCheck} against `keys`' JWKS. */
export function checkpointCheck(keys: Pick<SigningKeys, 'jwks'>): CheckpointCheck {
  return async (checkpoint) => {
    // Loaded at the first check (`audit verify`, a prune), not at every start: the verifier brings jose with it.
    const { verifyAnchor } = await import('../verify/index.js');
    const result = await verifyAnchor(
      { event_id: checkpoint.eventId, hash: checkpoint.hash, at: checkpoint.at, signature: checkpoint.signature },
      { keys: (await keys.jwks()).keys },
    );
    return result.ok ? { ok: true } : { ok: false, message: result.message };
  };
}
