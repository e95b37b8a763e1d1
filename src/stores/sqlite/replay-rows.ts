/**
 * @module stores/sqlite/replay-rows
 * `InsightsStore.replay` on SQLite: the window's requests, newest first, in keyset pages on
 * `confirmation_requests_created` (`created_at`, `id`), read as arrays of the few columns a replay uses. A replay runs
 * at 100,000 requests a second or more: the audit query's full rows (every column, each JSON decoded, each time a
 * `Date`) cost three times what the replay itself does, so here the JSON text is decoded only when read and times
 * stay the ISO text they are stored as.
 */
import type Database from 'better-sqlite3';
import { openHistoryReader, type OpenDatabase } from './database.js';
import type { ReplayRow } from '../../insights/types.js';
import { RAW_CREATED_AT, RAW_ID, RawReplayRow, REPLAY_COLUMN_NAMES, type ReplayRowRaw } from '../replay-row.js';

/** Rows per page: large enough that a statement's cost is spread thin, small enough to hold the thread ~10 ms. */
export const REPLAY_PAGE = 2000;

const COLUMNS = REPLAY_COLUMN_NAMES.join(', ');
const FIRST = `SELECT ${COLUMNS} FROM confirmation_requests WHERE created_at >= @since AND created_at < @until ORDER BY created_at DESC, id DESC LIMIT @limit`;
// The keyset condition in the audit query's shape (`requests/keyset.ts`): a range on the index, then the tie on id.
const NEXT = `SELECT ${COLUMNS} FROM confirmation_requests WHERE created_at >= @since AND created_at <= @at AND (created_at < @at OR id < @id) ORDER BY created_at DESC, id DESC LIMIT @limit`;

/**
 * The window's requests, newest first, a page at a time, read through a connection of their own (`openHistoryReader`:
 * a small page cache, so a walk of the whole history stays out of the gateway's memory), closed when done.
 */
export async function* sqliteReplay(
  open: OpenDatabase,
  window: { since: Date; until: Date },
  pageSize = REPLAY_PAGE,
): AsyncIterable<readonly ReplayRow[]> {
  const reader = openHistoryReader(open.sqlite);
  const sqlite = reader?.sqlite ?? open.sqlite;
  try {
    const first = sqlite.prepare(FIRST).raw() as Database.Statement<[Record<string, string | number>], ReplayRowRaw>;
    const next = sqlite.prepare(NEXT).raw() as Database.Statement<[Record<string, string | number>], ReplayRowRaw>;
    const bounds = { since: window.since.toISOString(), until: window.until.toISOString(), limit: pageSize };
    let raws = first.all(bounds) as unknown as ReplayRowRaw[];
    while (raws.length) {
      yield raws.map((r) => new RawReplayRow(r));
      if (raws.length < pageSize) break;
      const last = raws[raws.length - 1]!;
      raws = next.all({
        since: bounds.since,
        at: last[RAW_CREATED_AT],
        id: last[RAW_ID],
        limit: pageSize,
      }) as unknown as ReplayRowRaw[];
    }
  } finally {
    reader?.close();
  }
}
