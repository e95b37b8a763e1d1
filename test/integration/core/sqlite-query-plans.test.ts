/**
 * The SQLite statements on every decision, read and expiry must find rows by their request's id. Without ANALYZE
 * statistics SQLite may pick a low-selectivity index instead (`status`, event `type`) and visit every pending row
 * or every approval ever recorded for each call: invisible on a small table, seconds on a large one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { prepareStatements, type Statements } from '../../../src/stores/sqlite/statements.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-plans-'));
const open = openDatabase(join(dir, 'plans.db'));
applyMigrations(open);
const statements = prepareStatements(open.sqlite);
afterAll(() => {
  open.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Parameters to explain each statement with (the plan does not depend on their values). */
const PARAMS = {
  requestById: ['id'],
  touch: ['at', 'id'],
  voteState: ['id'],
  // Positional: status, at twice, responded_by … approved_args, allowed, id (statements.ts).
  flip: ['approved', 'at', 'at', null, null, null, null, null, null, null, 1, 'id'],
  approvers: ['id'],
  events: ['id'],
  expireDue: [{ at: 'at', now: 'now', limit: 500 }],
  requestsByIds: ['["id"]'],
  pendingPlans: [{ after: '', afterId: '', limit: 1000 }],
  receiptsOf: ['["id"]'],
  receiptsBetween: ['a', 'b', 2001],
  sameCall: [{ agentId: 'a', toolName: 't', sessionId: 's', argsSha256: 'h', window: 50, also: 1, anySession: 0 }],
} satisfies Partial<Record<keyof Statements, unknown[]>>;

/** The lines of `EXPLAIN QUERY PLAN` for one of the store's prepared statements. */
const plan = (name: keyof typeof PARAMS) =>
  (
    open.sqlite.prepare(`EXPLAIN QUERY PLAN ${statements[name].source}`).all(...PARAMS[name]) as { detail: string }[]
  ).map((r) => r.detail);

describe('SQLite query plans of the hot statements', () => {
  it.each(['requestById', 'voteState', 'touch', 'flip'] as const)('%s finds the request by its id', (name) => {
    expect(plan(name)).toEqual([
      expect.stringMatching(
        /^SEARCH confirmation_requests USING INDEX sqlite_autoindex_confirmation_requests_1 \(id=\?\)$/,
      ),
    ]);
  });

  it('requestsByIds finds each listed request by its id', () => {
    expect(plan('requestsByIds').join('\n')).toMatch(
      /SEARCH confirmation_requests USING INDEX sqlite_autoindex_confirmation_requests_1 \(id=\?\)/,
    );
  });

  it("pendingPlans walks the status index and looks up each row's events by the request index, not the type index", () => {
    const lines = plan('pendingPlans').join('\n');
    expect(lines).toMatch(
      /SEARCH confirmation_requests USING INDEX confirmation_requests_status_expires \(status=\? AND expires_at>\?\)/,
    );
    expect(lines).toMatch(/SEARCH e USING INDEX confirmation_events_request \(request_id=\?\)/);
    expect(lines).not.toMatch(/confirmation_events_type/);
  });

  it.each(['receiptsOf', 'receiptsBetween'] as const)(
    '%s reads receipts from their own index, not every event of each request',
    (name) => {
      const lines = plan(name).join('\n');
      expect(lines).toMatch(/SEARCH confirmation_events USING INDEX confirmation_events_receipts \(request_id[=>]/);
      expect(lines).not.toMatch(/confirmation_events_(type|request)\b/);
    },
  );

  it.each(['approvers', 'events'] as const)("%s reads the request's own events through the request index", (name) => {
    const lines = plan(name);
    expect(lines[0]).toMatch(
      /^SEARCH (confirmation_events|e) USING (COVERING )?INDEX confirmation_events_request \(request_id=\?\)/,
    );
    expect(lines.join('\n')).not.toMatch(/confirmation_events_type/);
  });

  it('expireDue picks due rows from the status index but updates each by its id', () => {
    const lines = plan('expireDue').join('\n');
    expect(lines).toMatch(
      /SEARCH confirmation_requests USING INDEX confirmation_requests_status_expires \(status=\? AND expires_at<\?\)/,
    );
    expect(lines).toMatch(
      /SEARCH confirmation_requests USING INDEX sqlite_autoindex_confirmation_requests_1 \(id=\?\)/,
    );
  });

  it.each([
    [0, 0],
    [1, 0],
    [0, 1],
  ])(
    "sameCall (also=%i, any session=%i: a coding agent's call) reads the agent and tool's newest rows from one index in order, the candidates by id, and sorts nothing",
    (also, anySession) => {
      const lines = open.sqlite
        .prepare(`EXPLAIN QUERY PLAN ${statements.sameCall.source}`)
        .all({ ...PARAMS.sameCall[0], also, anySession }) as { detail: string }[];
      const text = lines.map((r) => r.detail).join('\n');
      // The window comes from the index alone: no table row is read to cut it, and its order is the index's.
      expect(text).toMatch(
        /SEARCH confirmation_requests USING COVERING INDEX confirmation_requests_same_call \(agent_id=\? AND tool_name=\?\)/,
      );
      expect(text).toMatch(/SEARCH r USING INDEX sqlite_autoindex_confirmation_requests_1 \(id=\?\)/);
      // Neither the window's ORDER BY nor the outer one is sorted in a temporary b-tree (both were, on every hook call).
      expect(text).not.toMatch(/TEMP B-TREE/);
      expect(text).not.toMatch(/SCAN confirmation_requests/);
    },
  );
});
