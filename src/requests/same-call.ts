/**
 * @module requests/same-call
 * The part of `ConfirmationStore.newestSameCall` both stores share: the SQL narrows the window to rows of the
 * call's session whose `args_sha256` matches (or, with `alsoApprovedArgs`, that have approved arguments at all); the
 * approved arguments are hashed here, in JS, as `argsSha256` hashes (canonical JSON), which no SQL dialect repeats.
 */
import { argsSha256 } from './args-hash.js';
import type { SameCallQuery } from './store.js';

/** A candidate row as the SQL returns it: its hash and its approved arguments, as stored (JSON text or parsed). */
export interface SameCallCandidate {
  argsSha256: string;
  approvedArgs: string | Record<string, unknown> | null;
  agentKind: string | null;
  context: string | { cwd?: string | null } | null;
  filedBy: string | null;
}

/**
 * Whether a candidate was filed through the query's token and, for a coding agent's call, by that agent kind in its
 * working directory.
 */
function inWorkspace(row: SameCallCandidate, query: SameCallQuery): boolean {
  if (row.filedBy !== query.filedBy) return false;
  const w = query.workspace;
  if (!w) return true;
  if (row.agentKind !== w.agentKind) return false;
  const context = typeof row.context === 'string' ? (JSON.parse(row.context) as { cwd?: string | null }) : row.context;
  return (context?.cwd ?? null) === w.cwd;
}

/** The first of `candidates` (newest first) that is `query`'s call, or undefined. */
export function firstSameCall<T extends SameCallCandidate>(
  candidates: Iterable<T>,
  query: SameCallQuery,
): T | undefined {
  for (const row of candidates) {
    if (!inWorkspace(row, query)) continue;
    if (row.argsSha256 === query.argsSha256) return row;
    if (!query.alsoApprovedArgs || row.approvedArgs === null) continue;
    const approved =
      typeof row.approvedArgs === 'string'
        ? (JSON.parse(row.approvedArgs) as Record<string, unknown>)
        : row.approvedArgs;
    if (argsSha256(query.toolName, approved) === query.argsSha256) return row;
  }
  return undefined;
}

/** Clamps the window as the audit query clamps its limit, so no caller can ask for an unbounded scan. */
export function sameCallWindow(query: SameCallQuery): number {
  return Math.min(Math.max(Math.trunc(query.window), 1), 500);
}
