/**
 * @module stores/postgres/replay-rows
 * `InsightsStore.replay` on PostgreSQL, as SQLite's (`../sqlite/replay-rows.ts`): the window's requests, newest first,
 * in keyset pages on `confirmation_requests_created`, the few columns a replay uses as arrays. The JSON columns come
 * as text (`::text`), decoded only when read, and the time as ISO text: the driver would otherwise decode every
 * `jsonb` and build a `Date` per row whether or not the candidate looks at them.
 */
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import type { ReplayRow } from '../../insights/types.js';
import { RAW_CREATED_AT, RAW_ID, RawReplayRow, type ReplayRowRaw } from '../replay-row.js';

/** Rows per page (one round trip each). */
export const REPLAY_PAGE = 5000;

// In `REPLAY_COLUMN_NAMES`' order. Stored times are whole milliseconds (the gateway writes JavaScript dates), so the
// ISO text is exact as a cursor.
const COLUMNS = `id, tool_name, tool_args::text, agent_id, user_id, session_id, agent_kind, context::text, metadata::text, approvers::text,
  required_approvals, status, responded_via, responded_by_person, reason, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const FIRST = `SELECT ${COLUMNS} FROM confirmation_requests WHERE created_at >= $1 AND created_at < $2 ORDER BY created_at DESC, id DESC LIMIT $3`;
const NEXT = `SELECT ${COLUMNS} FROM confirmation_requests WHERE created_at >= $1 AND (created_at, id) < ($2::timestamptz, $3) ORDER BY created_at DESC, id DESC LIMIT $4`;

/** The window's requests, newest first, a page (one short statement) at a time. */
export async function* postgresReplay(
  open: OpenPostgres,
  window: { since: Date; until: Date },
  pageSize = REPLAY_PAGE,
): AsyncIterable<readonly ReplayRow[]> {
  const page = (text: string, values: unknown[]) =>
    withPostgresErrors(async () => (await open.pool.query<ReplayRowRaw>({ text, values, rowMode: 'array' })).rows);
  let raws = await page(FIRST, [window.since, window.until, pageSize]);
  while (raws.length) {
    yield raws.map((r) => new RawReplayRow(r));
    if (raws.length < pageSize) break;
    const last = raws[raws.length - 1]!;
    raws = await page(NEXT, [window.since, last[RAW_CREATED_AT], last[RAW_ID], pageSize]);
  }
}
