/**
 * @module stores/sqlite/chained-insert
 * The store's event insert, with the audit chain's `prev_hash` and `hash` computed here and written with the row. The
 * trigger of migration 0005 computed them by calling back into JavaScript and then updating the row it had just
 * inserted: two writes of every event, on every create and decision. The trigger stays (0009 runs it only for a row
 * inserted without its hash), so any other writer still extends the chain; the encoding is the one `audit verify`
 * checks (`audit/encoding.ts`).
 */
import type Database from 'better-sqlite3';
import { eventHash, GENESIS_HASH, type ChainedRequestFields } from '../../audit/encoding.js';
import type { NewEvent } from '../../requests/types.js';
import { isoString } from '../../utils/iso-time.js';
import type { RequestRow } from './rows.js';

/** The fields a `created` event's hash covers, as the request row stores them. */
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

/** Inserts events already chained; see the module comment. */
export class ChainedEventInsert {
  private readonly head: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(private readonly sqlite: Database.Database) {
    this.head = sqlite.prepare('SELECT hash FROM confirmation_events ORDER BY id DESC LIMIT 1').pluck();
    this.insert = sqlite.prepare(
      'INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  /**
   * Inserts `e` after the chain's head. Only inside a write transaction: the write lock is what keeps the head read
   * here the head the row is inserted after, with other processes on the same file. A `created` event needs its
   * request's stored fields (`request`); without them the row goes in unhashed and the trigger reads them.
   */
  run(requestId: string, e: NewEvent, request?: ChainedRequestFields): void {
    if (!this.sqlite.inTransaction) throw new Error('a chained event is inserted inside a write transaction');
    const detail = JSON.stringify(e.detail);
    const at = isoString(e.at);
    if (e.type === 'created' && !request) {
      this.insert.run(requestId, e.type, e.actor, e.channel, detail, at, null, null);
      return;
    }
    const prev = (this.head.get() as string | null | undefined) ?? GENESIS_HASH;
    const hash = eventHash(prev, {
      requestId,
      type: e.type,
      actor: e.actor,
      channel: e.channel,
      detail,
      at,
      request: e.type === 'created' ? request! : null,
    });
    this.insert.run(requestId, e.type, e.actor, e.channel, detail, at, prev, hash);
  }
}
