/**
 * @module audit/service
 * What the gateway offers about its audit trail: verify it, and publish its head as an anchor. An anchor is the newest
 * integrated event's place (`seq`) and chain hash, signed when a signer is configured: kept somewhere the database's
 * writers cannot reach (a SIEM, a ticket, another system's log), it shows whether the chain was cut short or
 * rewritten since.
 */
import type { JWK } from 'jose';
import type { ConfirmationStore } from '../requests/store.js';
import type { KeysChecked } from './report.js';
import type { AuditChain, ChainHead } from './types.js';
import { verifyAudit, type AuditReport, type CheckpointCheck } from './verify.js';
import { DEFAULT_MAX_DELAY_MS } from './integrator.js';
import { KeyRing } from './witness.js';
import { KEY_IN_DATABASE_WARNING } from '../signing/key-place.js';

/** Signs an anchor's claims (a compact JWS with the signing key); absent: anchors go unsigned. */
export type AnchorSigner = (claims: { event_id: number; hash: string; at: string }) => Promise<string>;

/** A published head: the newest event and, when a key is configured, a JWS over the three fields. */
export interface AuditAnchor {
  event_id: number;
  hash: string;
  at: string;
  signature: string | null;
}

/** The keys a verification checks signatures against. */
export interface VerifyKeys {
  /** The public keys (a JWKS's `keys`). */
  keys: JWK[];
  /** `pinned`: given by the auditor; `gateway`: the deployment's own. */
  source: 'pinned' | 'gateway';
  /** Whether the private key is kept in the database being verified (zero-configuration replicas). */
  inDatabase: boolean;
}

/** The report's account of `keys`. */
export function keysChecked(keys: VerifyKeys): KeysChecked {
  return {
    source: keys.source,
    kids: keys.keys.map((k) => k.kid ?? '?'),
    warning: keys.inDatabase && keys.source === 'gateway' ? KEY_IN_DATABASE_WARNING : null,
  };
}

/** Verification and anchors over one database's audit trail. */
export class AuditService {
  private checkCheckpoint: CheckpointCheck | undefined;
  private keys: (() => Promise<VerifyKeys>) | null = null;
  private integrate: (() => Promise<void>) | null = null;

  constructor(
    private readonly chain: AuditChain,
    private readonly store: ConfirmationStore,
    private signer: AnchorSigner | null = null,
    private readonly options: { maxDelayMs?: number; now?: () => Date } = {},
  ) {}

  /** Checks prune checkpoints' signatures from now on (`audit/checkpoint.ts`). */
  useCheckpointCheck(check: CheckpointCheck): void {
    this.checkCheckpoint = check;
  }

  /** The keys receipts, checkpoints and tokens are checked against (read at each verification). */
  useKeys(keys: () => Promise<VerifyKeys>): void {
    this.keys = keys;
  }

  /** Runs before each verification (the process's integrator), so what was just written is checked in its place. */
  useIntegrator(integrate: (() => Promise<void>) | null): void {
    this.integrate = integrate;
  }

  /** Signs anchors from now on (the signing key may be ready after the gateway is built). */
  useSigner(signer: AnchorSigner | null): void {
    this.signer = signer;
  }

  /** Walks the trail (from `from`, when given) and every request; see `verify.ts`. */
  async verify(from?: Date): Promise<AuditReport> {
    await this.integrate?.();
    const keys = this.keys ? await this.keys() : { keys: [], source: 'gateway' as const, inDatabase: false };
    return verifyAudit(this.chain, this.store, {
      keys: new KeyRing(keys.keys),
      keysChecked: keysChecked(keys),
      checkCheckpoint: this.checkCheckpoint,
      from,
      maxDelayMs: this.options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
      now: this.options.now?.() ?? new Date(),
    });
  }

  /** Events waiting for the integrator, and the oldest one's time (`/metrics`). */
  backlog(): Promise<{ events: number; oldestAt: string | null }> {
    return this.chain.pending();
  }

  /** The newest integrated event as an anchor, or null when there are none yet. */
  async head(): Promise<AuditAnchor | null> {
    await this.integrate?.();
    const head: ChainHead | null = await this.chain.head();
    if (!head) return null;
    const claims = { event_id: head.eventId, hash: head.hash, at: head.at };
    return { ...claims, signature: this.signer ? await this.signer(claims) : null };
  }
}
