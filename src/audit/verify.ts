/**
 * @module audit/verify
 * `tollgate audit verify` and `GET /v1/audit/verify`: walks the audit chain and the requests, and reports the first
 * broken link. What it proves (docs/audit.md): no chained event was edited, deleted, inserted or moved, and every
 * request row agrees with its events (status, who decided, the approved arguments). What it cannot: that the newest
 * events were not cut off the end, or the whole chain rewritten by someone holding the database — compare the head
 * with an anchor kept elsewhere (`GET /v1/audit/head`) for that.
 */
import { isDeepStrictEqual } from 'node:util';
import { argsMismatch, ASKED_COLUMNS, askedMismatch, decidedMismatch } from '../requests/coverage.js';
import type { ConfirmationStore } from '../requests/store.js';
import { eventsByRequest, type ConfirmationEvent, type ConfirmationRequest } from '../requests/types.js';
import { GENESIS_HASH, eventHashOfColumns } from './encoding.js';
import type { AuditChain, ChainCheckpoint, ChainHead, CoverageMark } from './types.js';

/**
 * Checks a checkpoint's signature (`verifyAnchor` with the gateway's keys); absent, a checkpoint is taken on trust and
 * the report says so (`checkpoint.signature_checked: false`).
 */
export type CheckpointCheck = (checkpoint: ChainCheckpoint) => Promise<{ ok: true } | { ok: false; message: string }>;

/** A broken link: where, and what is wrong there. */
export interface AuditProblem {
  kind: 'edited' | 'missing_or_inserted' | 'unchained' | 'request_mismatch' | 'bad_checkpoint';
  /** The event where the chain breaks (for `request_mismatch`, absent). */
  eventId?: number;
  requestId?: string;
  /**
   * The request column that no longer matches its chained events (`request_mismatch`, or `edited` at a created
   * event), when one can be named.
   */
  column?: string;
  message: string;
}

/** What a verification found. */
export interface AuditReport {
  ok: boolean;
  /** Events whose links were checked. */
  events: number;
  /** Requests checked against their events. */
  requests: number;
  head: ChainHead | null;
  /** The first broken link, when there is one. */
  problem: AuditProblem | null;
  /** Events chained after the fact when the chain was added to an older database (`chain_started`), if any. */
  chainStarted: { eventId: number; at: string } | null;
  /** Where the chain starts after `tollgate prune`: the last pruned event, and whether its signature was checked. */
  checkpoint: { eventId: number; hash: string; at: string; prunedBefore: string; signatureChecked: boolean } | null;
}

/** The report as the API and `tollgate audit verify --json` print it: snake_case, like every other wire object. */
export function auditReportJson(report: AuditReport): Record<string, unknown> {
  const { problem, head, chainStarted, checkpoint } = report;
  return {
    ok: report.ok,
    events: report.events,
    requests: report.requests,
    head: head && { event_id: head.eventId, hash: head.hash, at: head.at },
    problem: problem && {
      kind: problem.kind,
      event_id: problem.eventId ?? null,
      request_id: problem.requestId ?? null,
      column: problem.column ?? null,
      message: problem.message,
    },
    chain_started: chainStarted && { event_id: chainStarted.eventId, at: chainStarted.at },
    checkpoint: checkpoint && {
      event_id: checkpoint.eventId,
      hash: checkpoint.hash,
      at: checkpoint.at,
      pruned_before: checkpoint.prunedBefore,
      signature_checked: checkpoint.signatureChecked,
    },
  };
}

const PAGE = 1000;
const FINAL_EVENTS = new Set(['approved', 'denied', 'expired', 'cancelled']);

/** Verifies the chain (from the first event, or from the first one at or after `from`) and every request row. */
export async function verifyAudit(
  chain: AuditChain,
  store: ConfirmationStore,
  options: { from?: Date; checkCheckpoint?: CheckpointCheck } = {},
): Promise<AuditReport> {
  const started = await chain.started();
  const coverage = await chain.coverage();
  const checkpoint = await chain.checkpoint();
  let signatureChecked = false;
  let events = 0;
  let requests = 0;
  const done = async (problem: AuditProblem | null): Promise<AuditReport> => ({
    ok: problem === null,
    events,
    requests,
    head: await chain.head(),
    problem,
    chainStarted: started && started.eventId > 0 ? { eventId: started.eventId, at: started.at.toISOString() } : null,
    checkpoint: checkpoint && {
      eventId: checkpoint.eventId,
      hash: checkpoint.hash,
      at: checkpoint.at,
      prunedBefore: checkpoint.prunedBefore,
      signatureChecked,
    },
  });

  if (checkpoint && options.checkCheckpoint) {
    const checked = await options.checkCheckpoint(checkpoint);
    if (!checked.ok)
      return done({
        kind: 'bad_checkpoint',
        eventId: checkpoint.eventId,
        message: `the prune checkpoint at event ${checkpoint.eventId} is not signed by this gateway's keys: ${checked.message}`,
      });
    signatureChecked = true;
  }
  // After a prune the chain starts at the checkpoint: the first event kept must follow the last one pruned.
  const from = options.from ? await chain.lastBefore(options.from) : null;
  const start =
    checkpoint && (!from || from.id < checkpoint.eventId) ? { id: checkpoint.eventId, hash: checkpoint.hash } : from;
  let afterId = start?.id ?? 0;
  let prev: string | null = start ? start.hash : GENESIS_HASH;
  for (let rows = await chain.rows(afterId, PAGE); rows.length; rows = await chain.rows(afterId, PAGE)) {
    for (const [id, prevHash, hash, ...columns] of rows) {
      if (hash === null || prevHash === null)
        return done({
          kind: 'unchained',
          eventId: id,
          message: `event ${id} has no hash: it was written around the chain (not through tollgate's trigger)`,
        });
      if (prev !== null && prevHash !== prev) {
        const before = afterId ? `event ${afterId}` : 'the start of the chain';
        return done({
          kind: 'missing_or_inserted',
          eventId: id,
          message: `event ${id} does not follow ${before}: an event was deleted, inserted or moved just before it (its prev_hash is not the hash before it)`,
        });
      }
      if (eventHashOfColumns(prevHash, ...columns) !== hash) {
        if (columns[1] === 'created') return done(await editedRequest(store, id, String(columns[0]), columns[4]));
        return done({
          kind: 'edited',
          eventId: id,
          message: `event ${id} was edited: its hash does not match its content`,
        });
      }
      prev = hash;
      afterId = id;
      events++;
    }
  }

  let batch: ConfirmationRequest[] = [];
  const checkBatch = async (): Promise<AuditProblem | null> => {
    const byRequest = eventsByRequest(await store.eventsOf(batch.map((r) => r.id)));
    for (const request of batch) {
      const found = requestMismatch(request, byRequest.get(request.id) ?? [], coverage);
      if (found)
        return {
          kind: found.kind,
          requestId: request.id,
          ...(found.column ? { column: found.column } : {}),
          message: `request ${request.id}: ${found.message}`,
        };
      requests++;
    }
    batch = [];
    return null;
  };
  for await (const request of store.scan({})) {
    batch.push(request);
    if (batch.length >= 200) {
      const problem = await checkBatch();
      if (problem) return done(problem);
    }
  }
  return done(batch.length ? await checkBatch() : null);
}

/** Why a request row disagrees with its chained events: the column, when one is to blame, and a sentence. */
export interface RowMismatch {
  kind: 'request_mismatch' | 'unchained';
  column: string | null;
  message: string;
}

/**
 * Why `request` disagrees with its events, or null when every column the chain covers agrees (`coverage.ts`). Events
 * at or before `coverage` (written before the chain covered every column) are checked as before: status, responder
 * and approved arguments only. A row with no `created` event is unchained, unless it was filed before `coverage`.
 */
export function requestMismatch(
  request: ConfirmationRequest,
  events: readonly ConfirmationEvent[],
  coverage: CoverageMark | null = null,
): RowMismatch | null {
  const mismatch = (column: string | null, message: string): RowMismatch => ({
    kind: 'request_mismatch',
    column,
    message,
  });
  const covered = (e: ConfirmationEvent): boolean => !coverage || e.id > coverage.eventId;
  const created = events.find((e) => e.type === 'created');
  if (!created && !(coverage && request.createdAt.getTime() <= coverage.at.getTime())) {
    return {
      kind: 'unchained',
      column: null,
      message: 'the row has no chained `created` event: it was written around tollgate',
    };
  }
  if (created && covered(created)) {
    if (created.detail.asked === undefined)
      return {
        kind: 'unchained',
        column: null,
        message: `its created event ${created.id} carries no digest of what was asked: it was written around tollgate`,
      };
    // The newest digest holds: an escalation (`store.escalate`) widens the approvers and writes one.
    const asked = [...events]
      .reverse()
      .find((e) => (e.type === 'escalated' || e.type === 'created') && e.detail.asked !== undefined);
    if (argsMismatch(request))
      return mismatch(
        'tool_args',
        "the row's tool_args do not hash to its chained args_sha256 (the arguments were edited)",
      );
    const columns = asked ? askedMismatch(request, asked.detail.asked) : [];
    if (columns.length)
      return mismatch(
        columns[0]!,
        `the row's ${columns.join(', ')} differ${columns.length === 1 ? 's' : ''} from what event ${asked!.id} recorded`,
      );
  }
  const final = events.filter(
    (e) => FINAL_EVENTS.has(e.type) && (e.type !== 'approved' || isSettlingApproval(e, request)),
  );
  const verdict = final[0];
  if (request.status === 'pending')
    return verdict ? mismatch('status', `the row says pending, but event ${verdict.id} made it ${verdict.type}`) : null;
  if (!verdict) return mismatch('status', `the row says ${request.status}, but no event made it so`);
  if (final.length > 1) return mismatch('status', `events ${final.map((e) => e.id).join(' and ')} both settle it`);
  if (verdict.type !== request.status)
    return mismatch('status', `the row says ${request.status}, but event ${verdict.id} made it ${verdict.type}`);
  if ((verdict.actor ?? null) !== (request.respondedBy ?? null))
    return mismatch(
      'responded_by',
      `the row says ${request.respondedBy ?? 'nobody'} decided, but event ${verdict.id} says ${verdict.actor ?? 'nobody'}`,
    );
  const approvedArgs = verdict.type === 'approved' ? (verdict.detail.approved_args ?? null) : null;
  if (!isDeepStrictEqual(approvedArgs, request.approvedArgs ?? null))
    return mismatch('approved_args', `the row's approved arguments differ from those event ${verdict.id} recorded`);
  const decided = covered(verdict) ? decidedMismatch(request, verdict) : null;
  if (decided) {
    const [column, row, event] = decided;
    return mismatch(
      column,
      `the row's ${column} is ${JSON.stringify(row)}, but event ${verdict.id} recorded ${JSON.stringify(event)}`,
    );
  }
  return null;
}

/**
 * A `created` event whose hash no longer matches: the event itself, or one of the request columns its hash covers,
 * was edited. Its digest of what was asked names the column when the request's is what changed.
 */
async function editedRequest(
  store: ConfirmationStore,
  eventId: number,
  requestId: string,
  detailText: unknown,
): Promise<AuditProblem> {
  const request = await store.get(requestId);
  let asked: unknown;
  try {
    asked = (JSON.parse(String(detailText)) as { asked?: unknown }).asked;
  } catch {
    asked = undefined;
  }
  const columns = request && asked !== undefined ? askedMismatch(request, asked) : [];
  if (columns.length === 0 || columns.length === ASKED_COLUMNS.length) {
    return {
      kind: 'edited',
      eventId,
      requestId,
      message: `event ${eventId} was edited: its hash does not match its content (or its request's tool, arguments, quorum, timeout or requester)`,
    };
  }
  return {
    kind: 'edited',
    eventId,
    requestId,
    column: columns[0],
    message: `request ${requestId}: its ${columns.join(', ')} changed after filing (event ${eventId}, its created event, no longer matches)`,
  };
}

/** An `approved` event settles its request when it completes the quorum (events before the quorum name no `approvals`). */
function isSettlingApproval(event: ConfirmationEvent, request: ConfirmationRequest): boolean {
  const approvals = event.detail.approvals;
  return typeof approvals !== 'number' || approvals >= request.requiredApprovals;
}
