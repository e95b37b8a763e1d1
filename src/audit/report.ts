/**
 * @module audit/report
 * What `tollgate audit verify` and `GET /v1/audit/verify` report: the first problem found (request, event, what is
 * wrong), what was checked, and against which keys.
 */
import type { ChainHead } from './types.js';

/** What kind of problem: where the trail and the rows stop agreeing. */
export type AuditProblemKind =
  | 'edited'
  | 'missing_or_inserted'
  | 'unchained'
  | 'unwitnessed'
  | 'request_mismatch'
  | 'bad_checkpoint'
  | 'bad_token'
  | 'late';

/** A broken link: where, and what is wrong there. */
export interface AuditProblem {
  kind: AuditProblemKind;
  /** The event where the trail breaks: its `seq` when it has one, else its id (the message says which). */
  eventId?: number;
  requestId?: string;
  /** The request column that no longer matches its witnessed events, when one can be named. */
  column?: string;
  message: string;
}

/** Which keys signatures were checked against. */
export interface KeysChecked {
  /** `pinned`: a JWKS the auditor gave (`--keys`); `gateway`: the gateway's own current and retired keys. */
  source: 'pinned' | 'gateway';
  kids: string[];
  /** Set when the signing key lives in the database itself: its writers can forge. */
  warning: string | null;
}

/** What a verification found. */
export interface AuditReport {
  ok: boolean;
  /** Integrated events whose links, leaves and receipts were checked. */
  events: number;
  /** Requests checked against their events. */
  requests: number;
  receipts: number;
  checkpoints: number;
  /** Events still waiting for the integrator, and the oldest one's time. */
  pending: { events: number; oldestAt: string | null };
  head: ChainHead | null;
  /** The first problem, when there is one. */
  problem: AuditProblem | null;
  /** Events integrated under the signed `legacy` checkpoint (written before the fifth stage): checked by older rules. */
  legacy: { size: number; at: string } | null;
  /** Where the chain starts after `tollgate prune`: the last pruned event, and whether its signature was checked. */
  checkpoint: { eventId: number; hash: string; at: string; prunedBefore: string; signatureChecked: boolean } | null;
  keys: KeysChecked;
}

/** The report as the API and `tollgate audit verify --json` print it: snake_case, like every other wire object. */
export function auditReportJson(report: AuditReport): Record<string, unknown> {
  const { problem, head, legacy, checkpoint, keys } = report;
  return {
    ok: report.ok,
    events: report.events,
    requests: report.requests,
    receipts: report.receipts,
    checkpoints: report.checkpoints,
    pending: { events: report.pending.events, oldest_at: report.pending.oldestAt },
    head: head && { event_id: head.eventId, hash: head.hash, at: head.at },
    problem: problem && {
      kind: problem.kind,
      event_id: problem.eventId ?? null,
      request_id: problem.requestId ?? null,
      column: problem.column ?? null,
      message: problem.message,
    },
    legacy: legacy && { size: legacy.size, at: legacy.at },
    checkpoint: checkpoint && {
      event_id: checkpoint.eventId,
      hash: checkpoint.hash,
      at: checkpoint.at,
      pruned_before: checkpoint.prunedBefore,
      signature_checked: checkpoint.signatureChecked,
    },
    keys: { source: keys.source, kids: keys.kids, warning: keys.warning },
  };
}
