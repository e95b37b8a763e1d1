/**
 * @module stores/sqlite/witnessed-insert
 * The store's event insert, witnessed (docs/audit.md, "The proof"): each event goes in with its leaf and the id of
 * its transaction's batch receipt, and {@link WitnessedEvents.seal} signs the receipt just before the transaction
 * commits — one signature per group commit. Events take no place in the chain here: the integrator orders them after
 * commit (`audit/integrator.ts`), so a write never reads or waits for the chain's head.
 */
import type Database from 'better-sqlite3';
import type { ChainedRequestFields } from '../../audit/encoding.js';
import { storedEvent } from '../../audit/leaf.js';
import type { Witness } from '../../audit/witness.js';
import type { NewEvent } from '../../requests/types.js';
import type { RequestRow } from './rows.js';

/** The fields a `created` event's leaf covers, as the request row stores them. */
export function chainedFieldsOf(row: RequestRow): ChainedRequestFields {
  return {
    toolName: row.toolName,
    argsSha256: row.argsSha256,
    requiredApprovals: String(row.requiredApprovals),
    onTimeout: row.onTimeout,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    userId: row.userId,
    agentId: row.agentId,
    filedBy: row.filedBy,
  };
}

/** Inserts events with their leaves and signs each transaction's receipt; see the module comment. */
export class WitnessedEvents {
  /** Signs receipts; absent (a store opened by a tool that holds no key), events go in unwitnessed. */
  witness: Witness | null = null;
  private readonly insert: Database.Statement;
  private readonly insertReceipt: Database.Statement;
  private receiptId: string | null = null;
  private leaves: string[] = [];

  constructor(private readonly sqlite: Database.Database) {
    this.insert = sqlite.prepare(
      'INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertReceipt = sqlite.prepare(
      'INSERT INTO audit_receipts (id, kid, at, leaves, signature) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /**
   * Inserts `e`, inside a write transaction that ends with {@link seal}. A `created` event needs its request's stored
   * fields (`request`): its leaf covers them.
   */
  run(requestId: string, e: NewEvent, request?: ChainedRequestFields): void {
    if (!this.sqlite.inTransaction) throw new Error('a witnessed event is inserted inside a write transaction');
    if (e.type === 'created' && !request) throw new Error('a created event is inserted with its request fields');
    const { detail, at, leaf } = storedEvent(requestId, e, request ?? null, this.witness !== null);
    if (leaf) {
      this.receiptId ??= this.witness!.receiptId();
      this.leaves.push(leaf);
    }
    this.insert.run(requestId, e.type, e.actor, e.channel, detail, at, leaf, leaf && this.receiptId);
  }

  /** Signs and inserts the receipt of the events inserted since the last seal, if any: last thing before commit. */
  seal(): void {
    if (this.receiptId && this.witness && this.leaves.length) {
      const r = this.witness.receipt(this.receiptId, new Date().toISOString(), this.leaves);
      this.insertReceipt.run(r.id, r.kid, r.at, r.leaves.join(','), r.signature);
    }
    this.reset();
  }

  /** Forgets the open receipt (the transaction rolled back). */
  reset(): void {
    this.receiptId = null;
    this.leaves = [];
  }
}
