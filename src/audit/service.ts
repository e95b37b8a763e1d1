/**
 * @module audit/service
 * What the gateway offers about its audit trail: verify it, and publish its head as an anchor. An anchor is the newest
 * event's id and hash, signed when a signer is configured: kept somewhere the database's writers cannot reach (a SIEM,
 * a ticket, another system's log), it shows whether the chain was cut short or rewritten since.
 */
import type { ConfirmationStore } from '../requests/store.js';
import type { AuditChain, ChainHead } from './types.js';
import { verifyAudit, type AuditReport, type CheckpointCheck } from './verify.js';

/** Signs an anchor's claims (a compact JWS with the verdict-signing key); absent: anchors go unsigned. */
export type AnchorSigner = (claims: { event_id: number; hash: string; at: string }) => Promise<string>;

/** A published head: the newest event and, when a key is configured, a JWS over the three fields. */
export interface AuditAnchor {
  event_id: number;
  hash: string;
  at: string;
  signature: string | null;
}

/** Verification and anchors over one database's chain. */
export class AuditService {
  constructor(
    private readonly chain: AuditChain,
    private readonly store: ConfirmationStore,
    private signer: AnchorSigner | null = null,
  ) {}

  private checkCheckpoint: CheckpointCheck | undefined;

  /** Checks prune checkpoints' signatures from now on (`audit/checkpoint.ts`). */
  useCheckpointCheck(check: CheckpointCheck): void {
    this.checkCheckpoint = check;
  }

  /** Signs anchors from now on (the signing key may be ready after the gateway is built). */
  useSigner(signer: AnchorSigner | null): void {
    this.signer = signer;
  }

  /** Walks the chain (from `from`, when given) and every request; see `verify.ts`. */
  verify(from?: Date): Promise<AuditReport> {
    return verifyAudit(this.chain, this.store, { from, checkCheckpoint: this.checkCheckpoint });
  }

  /** The newest event as an anchor, or null when there are no events yet. */
  async head(): Promise<AuditAnchor | null> {
    const head: ChainHead | null = await this.chain.head();
    if (!head) return null;
    const claims = { event_id: head.eventId, hash: head.hash, at: head.at };
    return { ...claims, signature: this.signer ? await this.signer(claims) : null };
  }
}
