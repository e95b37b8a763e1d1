/**
 * @module tollgate/verify
 * Checking a verdict where the tool runs: before a tool server executes a call, it asks whether a human approved
 * exactly this tool with exactly these arguments, and recently. Needs only `jose` and `node:crypto` — no server code.
 *
 * @example
 * import { verifyVerdict } from 'tollgate/verify';
 * const result = await verifyVerdict(token, { jwksUrl: 'https://tollgate.example.com/.well-known/jwks.json', toolName: 'pay_invoice', args });
 * if (!result.ok) return res.status(403).json({ error: result.reason });
 */
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import { argsSha256 } from '../requests/args-hash.js';
import type { VerdictClaims } from '../signing/verdict.js';

export type { VerdictClaims } from '../signing/verdict.js';

/** Why a verdict was refused: one word a tool can branch on, and a sentence in `message`. */
export type VerdictFailure =
  | 'malformed'
  | 'bad_signature'
  | 'unknown_key'
  | 'expired'
  | 'wrong_tool'
  | 'wrong_request'
  | 'args_mismatch'
  | 'denied';

/** What {@link verifyVerdict} found. */
export type VerdictResult =
  { ok: true; claims: VerdictClaims } | { ok: false; reason: VerdictFailure; message: string; claims?: VerdictClaims };

/** Options of {@link verifyVerdict}: where the keys are, and the call about to run. */
export interface VerifyVerdictOptions {
  /** The gateway's `/.well-known/jwks.json` (fetched and cached by jose), or … */
  jwksUrl?: string | URL;
  /** … the public keys themselves (a JWKS body or its `keys`). */
  keys?: { keys: JWK[] } | JWK[];
  /** The tool about to run. */
  toolName: string;
  /** The arguments it is about to run with (hashed exactly as the gateway hashed the approved ones). */
  args: Record<string, unknown>;
  /**
   * The request the caller filed (or re-attached to), when it knows one: the token's `jti` must be it. Give it
   * whenever you can — without it, any genuine verdict for the same tool and arguments is accepted (for example an
   * older one relayed by whatever answers in the gateway's place).
   */
  requestId?: string;
  /** Seconds of clock skew tolerated on `exp` (default 0). */
  clockTolerance?: number;
  /** The time to check `exp` against (default now): for tests, and for checking a call logged earlier. */
  currentDate?: Date;
}

// signing/verdict's VERDICT_TYPE and ANCHOR_TYPE, written out: importing them would load server modules into a tool.
const VERDICT_TYPE = 'tollgate-verdict+jwt';
const ANCHOR_TYPE = 'tollgate-anchor+jwt';
/** JWKS getters by URL, so jose's cache (and cooldown between refetches) lasts across calls. */
const remoteSets = new Map<string, JWTVerifyGetKey>();

function keySet(options: VerifyVerdictOptions): JWTVerifyGetKey {
  if (options.keys) return createLocalJWKSet(Array.isArray(options.keys) ? { keys: options.keys } : options.keys);
  if (!options.jwksUrl) throw new TypeError('verifyVerdict: give jwksUrl or keys');
  const url = String(options.jwksUrl);
  let set = remoteSets.get(url);
  if (!set) remoteSets.set(url, (set = createRemoteJWKSet(new URL(url))));
  return set;
}

const fail = (reason: VerdictFailure, message: string, claims?: VerdictClaims): VerdictResult => ({
  ok: false,
  reason,
  message,
  ...(claims ? { claims } : {}),
});

/**
 * Checks a verdict token for the call about to run: signature (by a key of the gateway), type, expiry, tool, the
 * request (when `requestId` is given), the arguments' hash, and that the verdict allows the call. Never throws for a bad token: every refusal is
 * `{ok: false, reason}` (a key set that cannot be fetched is `unknown_key`). Throws only when neither `jwksUrl` nor
 * `keys` is given (a programming error, not a bad token).
 */
export async function verifyVerdict(token: string, options: VerifyVerdictOptions): Promise<VerdictResult> {
  if (typeof token !== 'string' || token.split('.').length !== 3) return fail('malformed', 'not a compact JWS');
  const keys = keySet(options);
  let claims: VerdictClaims;
  try {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: ['EdDSA', 'Ed25519'],
      typ: VERDICT_TYPE,
      clockTolerance: options.clockTolerance ?? 0,
      currentDate: options.currentDate,
      requiredClaims: ['jti', 'iat', 'exp'],
    });
    claims = payload as unknown as VerdictClaims;
  } catch (error) {
    if (error instanceof errors.JWTExpired)
      return fail(
        'expired',
        `the verdict expired at ${new Date(Number(error.payload.exp) * 1000).toISOString()}`,
        error.payload as unknown as VerdictClaims,
      );
    if (error instanceof errors.JWSSignatureVerificationFailed)
      return fail('bad_signature', 'the signature does not match the token');
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
      return fail('unknown_key', 'no key of the gateway signed this token');
    if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
      return fail('unknown_key', `cannot read the gateway's keys: ${(error as Error).message}`);
    if (error instanceof errors.JOSEError) return fail('malformed', `not a tollgate verdict: ${error.message}`);
    // Anything else came from fetching the key set (network, DNS, TLS).
    return fail('unknown_key', `cannot read the gateway's keys: ${(error as Error).message}`);
  }
  if (typeof claims.tool !== 'string' || typeof claims.args_sha256 !== 'string' || typeof claims.allowed !== 'boolean')
    return fail('malformed', 'the token lacks tool, args_sha256 or allowed');
  if (claims.tool !== options.toolName)
    return fail('wrong_tool', `the verdict is for ${claims.tool}, not ${options.toolName}`, claims);
  if (options.requestId !== undefined && claims.jti !== options.requestId)
    return fail('wrong_request', `the verdict is for request ${claims.jti}, not ${options.requestId}`, claims);
  if (claims.args_sha256 !== argsSha256(options.toolName, options.args))
    return fail('args_mismatch', 'the arguments differ from the approved ones', claims);
  if (!claims.allowed) return fail('denied', 'the verdict refuses this call', claims);
  return { ok: true, claims };
}

/** An audit anchor as `GET /v1/audit/head` publishes it. */
export interface AuditAnchor {
  event_id: number;
  hash: string;
  at: string;
  signature: string | null;
}

/**
 * Checks that an anchor kept elsewhere was signed by the gateway and that its signature covers exactly its
 * `event_id`, `hash` and `at`. Never throws for a bad anchor.
 */
export async function verifyAnchor(
  anchor: AuditAnchor,
  options: Pick<VerifyVerdictOptions, 'jwksUrl' | 'keys'>,
): Promise<
  { ok: true } | { ok: false; reason: 'unsigned' | 'bad_signature' | 'unknown_key' | 'mismatch'; message: string }
> {
  if (!anchor.signature) return { ok: false, reason: 'unsigned', message: 'the anchor carries no signature' };
  const keys = keySet({ ...options, toolName: '', args: {} });
  try {
    const { payload } = await jwtVerify(anchor.signature, keys, { algorithms: ['EdDSA', 'Ed25519'], typ: ANCHOR_TYPE });
    const same = payload.event_id === anchor.event_id && payload.hash === anchor.hash && payload.at === anchor.at;
    return same
      ? { ok: true }
      : { ok: false, reason: 'mismatch', message: 'the signature covers another event_id, hash or at' };
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey)
      return { ok: false, reason: 'unknown_key', message: 'no key of the gateway signed this anchor' };
    return { ok: false, reason: 'bad_signature', message: (error as Error).message };
  }
}
