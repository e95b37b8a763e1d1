/**
 * @module channels/discord/verify
 * Checks that an interaction comes from Discord: `X-Signature-Ed25519` (hex) is the application's Ed25519 signature
 * of `X-Signature-Timestamp` + the raw body, and the timestamp lies within the replay window on both sides (Discord
 * itself only signs; without the window a captured tap would stay valid forever). Uses node:crypto alone.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { SeenOnce } from '../../src/utils/seen-once.js';

/** How far an interaction's timestamp may be from now: five minutes either way. */
export const DEFAULT_REPLAY_WINDOW_S = 300;

/** The DER header of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 raw key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Turns the application's hex public key (from the developer portal) into a key node:crypto verifies with. */
export function publicKeyFromHex(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('a Discord public key is 64 hex characters');
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

/** What {@link verifyInteraction} needs besides the request. */
export interface VerifyOptions {
  key: KeyObject;
  /** Now, in epoch milliseconds. */
  now: number;
  windowS?: number;
}

/** Why an interaction is refused, or null when its signature and timestamp hold. */
export function interactionProblem(
  raw: Buffer,
  signature: string | undefined,
  timestamp: string | undefined,
  options: VerifyOptions,
): string | null {
  if (!signature || !timestamp) return 'missing x-signature-ed25519 or x-signature-timestamp';
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return 'x-signature-ed25519 is not 64 hex bytes';
  if (!/^\d{1,12}$/.test(timestamp)) return 'x-signature-timestamp is not a number of seconds';
  // The signature first: an unsigned timestamp says nothing, and the answer should not tell a forger which part failed.
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), raw]);
  if (!verify(null, signed, options.key, Buffer.from(signature, 'hex'))) return 'bad signature';
  const windowS = options.windowS ?? DEFAULT_REPLAY_WINDOW_S;
  const skew = Number(timestamp) - Math.floor(options.now / 1000);
  if (skew < -windowS) return `timestamp is ${-skew} s old (window ${windowS} s)`;
  if (skew > windowS) return `timestamp is ${skew} s in the future (window ${windowS} s)`;
  return null;
}

/**
 * Interaction ids already accepted, kept for twice the replay window: Discord never sends an interaction twice, so a
 * second copy of a correctly signed body inside the window is a replay. In-process only (a replica that never saw the
 * first copy takes the second, which the gateway's compare-and-set then refuses as already decided).
 */
export class SeenInteractions extends SeenOnce<string> {
  constructor(windowS = DEFAULT_REPLAY_WINDOW_S, max = 10_000) {
    super(windowS * 2000, max);
  }
}
