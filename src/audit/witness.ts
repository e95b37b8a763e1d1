/**
 * @module audit/witness
 * What the process that commits a write signs inside that transaction (ARCHITECTURE.md, "The proof"): one batch
 * receipt over the leaves of the events it adds, and the verdict token of every request it settles, minted from the
 * values it commits. Everything here is synchronous (`node:crypto`'s Ed25519), so a SQLite transaction — synchronous
 * by design — signs without leaving it. Nothing here reads a row back: callers hand over what they are writing.
 *
 * Cost: one Ed25519 signature (~50 µs of CPU) per group commit, plus a SHA-256 per event; a verdict token is another
 * signature per settled request (it was paid before too, on the first read).
 */
import { createPublicKey, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import { signCompactJws } from '../signing/jws.js';
import type { SigningKey } from '../signing/keys.js';
import { hasVerdict, verdictClaims, VERDICT_TYPE } from '../signing/verdict.js';
import { checkpointMessage, receiptMessage, type CheckpointFields } from './leaf.js';

/** A batch receipt: the leaves one transaction added, signed by the process that committed them. */
export interface Receipt {
  id: string;
  kid: string;
  at: string;
  leaves: string[];
  /** base64url Ed25519 signature over `receiptMessage`. */
  signature: string;
}

/** A signed checkpoint of the integrated chain. */
export interface SignedCheckpoint extends CheckpointFields {
  /** base64url Ed25519 signature over `checkpointMessage`. */
  signature: string;
}

/** Signs receipts, checkpoints and verdict tokens with one key, synchronously. */
export class Witness {
  /** The public keys this gateway trusts for what it reads back (its own and its retired ones). */
  readonly keys: KeyRing;

  constructor(
    readonly key: SigningKey,
    /** Seconds a verdict token holds after its decision. */
    readonly ttlS: number,
    /** The public keys besides `key`'s that its receipts may be signed with (retired keys). */
    trusted: readonly JWK[] = [],
  ) {
    this.keys = new KeyRing([key.publicJwk, ...trusted]);
  }

  /** A new receipt id, taken before the transaction's events are inserted (each event row names its receipt). */
  receiptId(): string {
    return randomUUID();
  }

  /** The receipt over `leaves`, committed as `id` at `at`. */
  receipt(id: string, at: string, leaves: string[]): Receipt {
    const fields = { id, kid: this.key.kid, at, leaves };
    return { ...fields, signature: sign(null, receiptMessage(fields), this.key.privateKey).toString('base64url') };
  }

  /** A checkpoint of the chain at `size`, signed. */
  checkpoint(fields: Omit<CheckpointFields, 'kid'>): SignedCheckpoint {
    const full = { ...fields, kid: this.key.kid };
    return { ...full, signature: sign(null, checkpointMessage(full), this.key.privateKey).toString('base64url') };
  }

  /** The seal of a row that gives rights but is no event (an away change, a token: `witnessed-rows.ts`). */
  signRow(message: Buffer): { kid: string; signature: string } {
    return { kid: this.key.kid, signature: sign(null, message, this.key.privateKey).toString('base64url') };
  }

  /**
   * The verdict token of `r` as it is being committed (final, `allowed` settled); `approvals` are the accounts and
   * people of its `approved` events, in order, when a quorum decided it. Null for a row with no verdict.
   */
  verdict(r: ConfirmationRequest, approvals: readonly { actor: string; person: string }[] = []): string | null {
    if (!hasVerdict(r)) return null;
    const events = approvals.map((a, i): ConfirmationEvent => ({
      id: i,
      requestId: r.id,
      type: 'approved',
      actor: a.actor,
      channel: null,
      detail: { person: a.person },
      at: r.updatedAt,
    }));
    return signCompactJws(
      { alg: 'EdDSA', kid: this.key.kid, typ: VERDICT_TYPE },
      verdictClaims(r, this.ttlS, events),
      this.key.privateKey,
    );
  }
}

/** Public keys by `kid`, from a JWKS: what receipts and checkpoints are checked against. */
export class KeyRing {
  private readonly keys = new Map<string, KeyObject>();

  constructor(jwks: readonly JWK[]) {
    for (const jwk of jwks) {
      if (!jwk.kid || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') continue;
      this.keys.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! }, format: 'jwk' }));
    }
  }

  /** The key ids known. */
  kids(): string[] {
    return [...this.keys.keys()];
  }

  /** Why `receipt` does not verify, or null when it does. */
  checkReceipt(receipt: Receipt): string | null {
    return this.check(receipt.kid, receiptMessage(receipt), receipt.signature);
  }

  /** Why `checkpoint` does not verify, or null when it does. */
  checkCheckpoint(checkpoint: SignedCheckpoint): string | null {
    return this.check(checkpoint.kid, checkpointMessage(checkpoint), checkpoint.signature);
  }

  /** Why a compact JWS's signature (`input` = its first two parts) does not verify with key `kid`, or null. */
  checkJws(kid: string, input: string, signature: string): string | null {
    return this.check(kid, Buffer.from(input), signature);
  }

  /** Why `signature` over `message` does not verify with key `kid` (a row's seal), or null when it does. */
  checkSigned(kid: string, message: Buffer, signature: string): string | null {
    return this.check(kid, message, signature);
  }

  private check(kid: string, message: Buffer, signature: string): string | null {
    const key = this.keys.get(kid);
    if (!key) return `signed by key ${kid}, which is not among the keys checked against`;
    let ok = false;
    try {
      ok = verify(null, message, key, Buffer.from(signature, 'base64url'));
    } catch {
      ok = false;
    }
    return ok ? null : `its signature by key ${kid} does not verify`;
  }
}
