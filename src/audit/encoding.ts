/**
 * @module audit/encoding
 * The audit chain's canonical encoding (docs/audit.md). Every `confirmation_events` row carries `prev_hash` (the hash
 * of the row before it by id; 64 zeros for the first) and `hash`:
 *
 * ```
 * hash = hex(SHA-256("tollgate-chain-v1\n" + prev_hash + "\n" + F(request_id) F(type) F(actor) F(channel) F(detail) F(at) R))
 * F(v) = "-;" for NULL, else "<UTF-8 byte length>:" + v + ";"
 * R    = for a `created` event, F() of the request's immutable fields — tool_name, args_sha256, required_approvals,
 *        on_timeout, created_at, expires_at, user_id, agent_id, filed_by — else "-;"
 * ```
 * `detail` is the stored JSON text (SQLite's text as written; PostgreSQL's `detail::text`), times are ISO-8601 UTC
 * with milliseconds. Length prefixes make the encoding unambiguous whatever a field contains.
 *
 * The database computes the hashes itself as rows are inserted (a trigger on each dialect: SQLite calls
 * {@link eventHash} as a registered function; PostgreSQL runs the same encoding in PL/pgSQL), so every writer — each
 * store statement, a replica, a copy — extends the one chain; the verifier recomputes them here. The SQLite store
 * hashes its own events before inserting them (`stores/sqlite/chained-insert.ts`), and the trigger skips those.
 */
import { createHash } from 'node:crypto';
import { field, requestPart, type ChainedRequestFields } from './leaf.js';

export type { ChainedRequestFields } from './leaf.js';

/** `prev_hash` of the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** One event as the chain encodes it: every field as stored text. */
export interface ChainedEvent {
  requestId: string;
  type: string;
  actor: string | null;
  channel: string | null;
  /** The stored JSON text. */
  detail: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  /** For a `created` event, its request's immutable fields; otherwise null. */
  request: ChainedRequestFields | null;
}

/** The hash of `event` chained after `prevHash`. */
export function eventHash(prevHash: string, event: ChainedEvent): string {
  const request = requestPart(event.request);
  const fields = [event.requestId, event.type, event.actor, event.channel, event.detail, event.at].map(field).join('');
  return createHash('sha256').update(`tollgate-chain-v1\n${prevHash}\n${fields}${request}`, 'utf8').digest('hex');
}

/**
 * The same as {@link eventHash}, with the fields as separate arguments: the function SQLite's trigger calls
 * (`tollgate_event_hash`). A `created` event passes its request's fields; other events pass NULLs for them.
 */
export function eventHashOfColumns(prevHash: string, ...columns: (string | number | null)[]): string {
  const [
    requestId,
    type,
    actor,
    channel,
    detail,
    at,
    toolName,
    argsSha256,
    requiredApprovals,
    onTimeout,
    createdAt,
    expiresAt,
    userId,
    agentId,
    filedBy,
  ] = columns.map((v) => (v === null || v === undefined ? null : String(v)));
  const request =
    type === 'created' && toolName
      ? {
          toolName,
          argsSha256: argsSha256 ?? '',
          requiredApprovals: requiredApprovals ?? '',
          onTimeout: onTimeout ?? '',
          createdAt: createdAt ?? '',
          expiresAt: expiresAt ?? '',
          userId: userId ?? null,
          agentId: agentId ?? null,
          filedBy: filedBy ?? null,
        }
      : null;
  return eventHash(prevHash, {
    requestId: requestId ?? '',
    type: type ?? '',
    actor: actor ?? null,
    channel: channel ?? null,
    detail: detail ?? '',
    at: at ?? '',
    request,
  });
}
