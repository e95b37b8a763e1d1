/**
 * @module signing/verdict
 * Verdict tokens: a compact JWS (EdDSA) a tool checks before it runs, saying which request allowed (or refused) which
 * tool with which arguments, decided by whom, when, and until when the verdict holds. The claims come from the final
 * row alone (and, for a quorum, its approval events), and Ed25519 signatures are deterministic: every replica signing
 * the same row produces the same token, so a token can be signed where it is read and cached, never stored.
 */
import { ValidationError } from '../api/errors.js';
import { argsSha256 } from '../requests/args-hash.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import { signCompactJws } from './jws.js';
import type { SigningKeys } from './keys.js';

/** The claims of a verdict token (contract: docs/audit.md, "Signed verdicts"). */
export interface VerdictClaims {
  /** The request id. */
  jti: string;
  tool: string;
  /** `argsSha256(tool, args)` of the arguments the tool may run with: the approved (edited) ones when there are. */
  args_sha256: string;
  /** Whether the tool may run. */
  allowed: boolean;
  /** The people who decided (every approver of a quorum; the denier of a denial; none for an expiry). */
  people: string[];
  /** Their accounts (`slack:U…`, `web:alice`, `api:…`), in the same order. */
  accounts: string[];
  /** Decision time, seconds since the epoch. */
  iat: number;
  /** Until when a tool should accept the token, seconds since the epoch. */
  exp: number;
}

/** The JWS `typ` of a verdict, so an anchor (or any other token of the key) is never taken for one. */
export const VERDICT_TYPE = 'tollgate-verdict+jwt';
/** The JWS `typ` of a signed audit anchor. */
export const ANCHOR_TYPE = 'tollgate-anchor+jwt';

/** How long a verdict holds after its decision when `TOLLGATE_VERDICT_TTL_S` is not set: one hour. */
export const DEFAULT_VERDICT_TTL_S = 3600;

/** `TOLLGATE_VERDICT_TTL_S` (whole seconds, at least 1), or the default; anything else stops the start naming the variable. */
export function verdictTtlFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.TOLLGATE_VERDICT_TTL_S?.trim();
  if (!raw) return DEFAULT_VERDICT_TTL_S;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ValidationError(
      `TOLLGATE_VERDICT_TTL_S: must be a positive whole number of seconds, got ${JSON.stringify(raw)}`,
    );
  return value;
}

/** Whether a row has a verdict to sign: final, with `allowed` settled. */
export function hasVerdict(r: ConfirmationRequest): boolean {
  return r.status !== 'pending' && r.allowed !== null;
}

/**
 * The claims of a final row. `events` are needed only for a quorum (`required_approvals > 1`), whose approvers are
 * in its `approved` events; a single decider is on the row itself.
 */
export function verdictClaims(
  r: ConfirmationRequest,
  ttlS: number,
  events: readonly ConfirmationEvent[] = [],
): VerdictClaims {
  const iat = Math.floor((r.respondedAt ?? r.updatedAt).getTime() / 1000);
  let deciders: { account: string; person: string }[] = r.respondedBy
    ? [{ account: r.respondedBy, person: r.respondedByPerson ?? r.respondedBy }]
    : [];
  if (r.status === 'approved' && r.requiredApprovals > 1) {
    const approvals = events.filter((e) => e.type === 'approved' && e.actor);
    if (approvals.length > 0)
      deciders = approvals.map((e) => ({
        account: e.actor!,
        person: typeof e.detail.person === 'string' ? e.detail.person : e.actor!,
      }));
  }
  return {
    jti: r.id,
    tool: r.toolName,
    // Without edited arguments, the row's own `args_sha256` (hashed from these arguments at filing, covered by the
    // chain, and checked against them before a row only read is signed): hashing them again cost ~25 µs a verdict.
    args_sha256: r.approvedArgs ? argsSha256(r.toolName, r.approvedArgs) : r.argsSha256,
    allowed: r.allowed === true,
    people: deciders.map((d) => d.person),
    accounts: deciders.map((d) => d.account),
    iat,
    exp: iat + ttlS,
  };
}

/** Options of {@link VerdictSigner}. */
export interface VerdictSignerOptions {
  /** Seconds a verdict holds after its decision (default {@link DEFAULT_VERDICT_TTL_S}). */
  ttlS?: number;
  /** Tokens kept in memory, by request id (default 10 000): a token is signed once per process, not per read. */
  cacheSize?: number;
}

/** Signs verdicts and audit anchors with the deployment's current key. */
export class VerdictSigner {
  readonly ttlS: number;
  private readonly cacheSize: number;
  /** Request id → token, oldest first (a Map keeps insertion order: the first key is the one to evict). */
  private readonly cache = new Map<string, { stamp: string; token: string }>();

  constructor(
    readonly keys: SigningKeys,
    options: VerdictSignerOptions = {},
  ) {
    this.ttlS = options.ttlS ?? DEFAULT_VERDICT_TTL_S;
    this.cacheSize = options.cacheSize ?? 10_000;
  }

  /** Whether signing `r` needs its events (a quorum approval): the caller reads them only then. */
  needsEvents(r: ConfirmationRequest): boolean {
    return r.status === 'approved' && r.requiredApprovals > 1;
  }

  /** The cached token of `r`, if this process signed this version of the row already. */
  cached(r: ConfirmationRequest): string | undefined {
    const hit = this.cache.get(r.id);
    return hit && hit.stamp === stampOf(r) ? hit.token : undefined;
  }

  /** The verdict token of a final row (signed now, or from the cache). */
  async sign(r: ConfirmationRequest, events?: readonly ConfirmationEvent[]): Promise<string> {
    const hit = this.cached(r);
    if (hit) return hit;
    const key = await this.keys.current();
    const token = signCompactJws(
      { alg: 'EdDSA', kid: key.kid, typ: VERDICT_TYPE },
      verdictClaims(r, this.ttlS, events),
      key.privateKey,
    );
    if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(r.id, { stamp: stampOf(r), token });
    return token;
  }

  /** A JWS over an audit anchor's fields (no `iat`: the same head always gives the same signature). */
  readonly signAnchor = async (claims: { event_id: number; hash: string; at: string }): Promise<string> =>
    (await anchorSignerOf(this.keys))(claims);
}

/**
 * Signs audit anchors and prune checkpoints with the current key, read once here: the signer it resolves with never
 * waits, so a prune can sign inside its transaction (`tollgate prune`, `history/retention`).
 */
export async function anchorSignerOf(
  keys: SigningKeys,
): Promise<(claims: { event_id: number; hash: string; at: string }) => string> {
  const key = await keys.current();
  return (claims) =>
    signCompactJws(
      { alg: 'EdDSA', kid: key.kid, typ: ANCHOR_TYPE },
      { event_id: claims.event_id, hash: claims.hash, at: claims.at },
      key.privateKey,
    );
}

/** What makes a cached token stale: a row that changed since (it never should, once final). */
function stampOf(r: ConfirmationRequest): string {
  return `${r.status}|${r.updatedAt.getTime()}`;
}
