/**
 * @module stores/postgres/rows
 * Rows ↔ domain objects on PostgreSQL, and the column lists the store's SQL uses. Column lists are derived from the
 * drizzle schema (as SQLite's statements are), so SQL and schema cannot drift. `pg` already reads `timestamptz` as a
 * `Date`, `jsonb` as parsed JSON and `boolean` as a boolean; only `bigint` ids arrive as strings.
 */
import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';
import type { channelMessages, confirmationEvents } from './schema.js';
import { confirmationRequests } from './schema.js';
import type { ChannelMessage, ConfirmationEvent, ConfirmationRequest, EventType } from '../../requests/types.js';

/** A request row as `pg` returns it under the select list's camelCase aliases. */
export type RequestRow = InferSelectModel<typeof confirmationRequests>;
type EventRow = Omit<InferSelectModel<typeof confirmationEvents>, 'id'> & { id: string | number };
type MessageRow = InferSelectModel<typeof channelMessages>;

/** `t."tool_name" AS "toolName", …` for every column of `table` (optionally qualified by `alias`). */
export function selectList(table: Table, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return Object.entries(getTableColumns(table))
    .map(([key, column]) => `${prefix}"${column.name}" AS "${key}"`)
    .join(', ');
}

/** The request columns in insertion order: their keys in {@link RequestRow} and their quoted names. */
export const REQUEST_INSERT = (() => {
  const columns = Object.entries(getTableColumns(confirmationRequests));
  return {
    keys: columns.map(([key]) => key as keyof RequestRow),
    names: columns.map(([, c]) => c.name),
    columns: columns.map(([, c]) => `"${c.name}"`).join(', '),
    /** The rows of the JSON array in `$1` (see {@link requestRecords}), ready to insert. */
    fromRecords: `SELECT ${columns.map(([, c]) => `"${c.name}"`).join(', ')} FROM jsonb_populate_recordset(NULL::confirmation_requests, $1::jsonb)`,
  };
})();

/**
 * `requests` as one JSON array of objects keyed by column name, for `jsonb_populate_recordset`: PostgreSQL converts
 * each value to its column's type (ISO text to `timestamptz`, nested JSON to `jsonb`), so a batch is one parameter.
 */
export function requestRecords(requests: ConfirmationRequest[]): string {
  return JSON.stringify(
    requests.map((r) => {
      const row: RequestRow = r;
      const record: Record<string, unknown> = {};
      REQUEST_INSERT.keys.forEach((key, i) => (record[REQUEST_INSERT.names[i]!] = row[key]));
      return record;
    }),
  );
}

/** A row as a request. */
export function rowToRequest(row: RequestRow): ConfirmationRequest {
  return {
    ...row,
    status: row.status as ConfirmationRequest['status'],
    onTimeout: row.onTimeout as ConfirmationRequest['onTimeout'],
    approvedArgs: row.approvedArgs ?? null,
  };
}

/** An event row as an event. */
export function rowToEvent(row: EventRow): ConfirmationEvent {
  return {
    id: Number(row.id),
    requestId: row.requestId,
    type: row.type as EventType,
    actor: row.actor,
    channel: row.channel,
    detail: row.detail,
    at: row.at,
  };
}

/** A card row as a channel message. */
export function rowToMessage(row: MessageRow): ChannelMessage {
  return {
    requestId: row.requestId,
    channel: row.channel,
    target: row.target,
    messageRef: row.messageRef,
    status: row.status as ChannelMessage['status'],
    attempts: row.attempts,
    lastError: row.lastError,
    updatedAt: row.updatedAt,
  };
}
